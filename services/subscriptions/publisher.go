package subscriptions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Publisher announces a catalog change to every listening instance.
type Publisher interface {
	// Publish announces e. It fails with models.ErrInvalidInput for an
	// unknown kind or edition, or with the transport's error.
	Publish(ctx context.Context, e Event) error
}

// LocalPublisher returns a Publisher that delivers straight to h. Use it
// with the embedded SQLite store, where there is no other instance to reach.
func LocalPublisher(h *Hub) Publisher {
	return localPublisher{hub: h}
}

type localPublisher struct{ hub *Hub }

func (p localPublisher) Publish(_ context.Context, e Event) error {
	if err := e.validate(); err != nil {
		return fmt.Errorf("publish catalog event: %w", err)
	}
	p.hub.Publish(e)
	return nil
}

// Execer runs a statement. *sql.DB, *sql.Tx and *sql.Conn satisfy it; with
// a *sql.Tx the notification is sent when (and only if) the transaction
// commits, which is PostgreSQL's NOTIFY semantics.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// PGPublisher announces catalog changes with NOTIFY on Channel, reaching the
// PGListener of every instance connected to the same database (including
// this process's own, if it runs one). It works from any process, such as
// the CLI.
type PGPublisher struct {
	db Execer
}

var _ Publisher = (*PGPublisher)(nil)

// NewPGPublisher returns a PGPublisher sending through db, which must be a
// PostgreSQL connection (for example gorm's *sql.DB over pgx's stdlib
// driver).
func NewPGPublisher(db Execer) *PGPublisher {
	return &PGPublisher{db: db}
}

// notifySQL sends the notification; pg_notify takes parameters, NOTIFY
// does not.
const notifySQL = "SELECT pg_notify($1, $2)"

// Publish sends e as a small JSON payload on Channel.
func (p *PGPublisher) Publish(ctx context.Context, e Event) error {
	if p.db == nil {
		return errors.New("publish catalog event: no database")
	}
	payload, err := encodePayload(e)
	if err != nil {
		return fmt.Errorf("publish catalog event: %w", err)
	}
	if _, err := p.db.ExecContext(ctx, notifySQL, Channel, payload); err != nil {
		return fmt.Errorf("notify %s: %w", Channel, err)
	}
	return nil
}
