package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// Defaults of the deadlines (Options.StatementTimeout, AcquireTimeout,
// OutageLogInterval).
const (
	DefaultStatementTimeout  = 5 * time.Second
	DefaultAcquireTimeout    = 5 * time.Second
	DefaultOutageLogInterval = 10 * time.Second
)

// SQLite primary result codes of a database another connection holds.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

// deadlines puts a time limit on every statement and on taking a
// connection for a transaction, so that a stalled database (a hung server,
// a network that stopped forwarding) answers models.ErrStoreUnavailable
// instead of holding requests for the whole stall.
type deadlines struct {
	statement time.Duration // ≤ 0: none
	acquire   time.Duration // ≤ 0: none
	outage    *outageLog
}

const deadlineKey = "glmcp:statement_deadline"

type statementDeadline struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
}

// register installs the deadline around every kind of statement gorm runs.
func (d *deadlines) register(db *gorm.DB) error {
	type registrar interface {
		Register(name string, fn func(*gorm.DB)) error
	}
	cb := db.Callback()
	for _, k := range []struct {
		name          string
		before, after registrar
		rows          bool // the caller reads rows after the callbacks
	}{
		{"create", cb.Create().Before("*"), cb.Create().After("*"), false},
		{"query", cb.Query().Before("*"), cb.Query().After("*"), false},
		{"update", cb.Update().Before("*"), cb.Update().After("*"), false},
		{"delete", cb.Delete().Before("*"), cb.Delete().After("*"), false},
		{"raw", cb.Raw().Before("*"), cb.Raw().After("*"), false},
		{"row", cb.Row().Before("*"), cb.Row().After("*"), true},
	} {
		rows := k.rows
		if err := k.before.Register("glmcp:deadline_"+k.name, d.before); err != nil {
			return fmt.Errorf("register statement deadline: %w", err)
		}
		if err := k.after.Register("glmcp:deadline_done_"+k.name, func(db *gorm.DB) { d.after(db, rows) }); err != nil {
			return fmt.Errorf("register statement deadline: %w", err)
		}
	}
	return nil
}

func (d *deadlines) before(db *gorm.DB) {
	if d.statement <= 0 {
		return
	}
	parent := db.Statement.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, d.statement)
	db.Statement.Context = ctx
	db.InstanceSet(deadlineKey, &statementDeadline{parent: parent, ctx: ctx, cancel: cancel})
}

// after turns a statement that ran out of time, or lost its connection,
// into models.ErrStoreUnavailable and records the outage (or its end).
// rows is set for statements whose rows the caller reads afterwards: their
// deadline stays in force until it fires (its timer is all they hold).
func (d *deadlines) after(db *gorm.DB, rows bool) {
	var sd *statementDeadline
	if v, ok := db.InstanceGet(deadlineKey); ok {
		sd, _ = v.(*statementDeadline)
	}
	if sd != nil {
		timedOut := sd.ctx.Err() == context.DeadlineExceeded && sd.parent.Err() == nil
		if db.Error != nil && timedOut {
			db.Error = unavailableError(db.Error)
		}
		db.Statement.Context = sd.parent
		if !rows {
			sd.cancel()
		}
	}
	switch {
	case db.Error == nil:
		d.outage.ok()
	case unavailable(db.Error):
		db.Error = unavailableError(db.Error)
		d.outage.fail(db.Statement.Context, db.Error)
	}
}

// acquireConn runs fn on one connection of the pool, taken within the
// acquire deadline (a transaction's statements then each have their own).
// An error taking the connection is models.ErrStoreUnavailable; fn's error
// is returned unchanged.
func (d *deadlines) acquireConn(ctx context.Context, db *gorm.DB, fn func(conn *gorm.DB) error) error {
	if d.acquire <= 0 {
		return fn(db.WithContext(ctx))
	}
	actx, cancel := context.WithTimeout(ctx, d.acquire)
	defer cancel()
	entered := false
	err := db.WithContext(actx).Connection(func(conn *gorm.DB) error {
		entered = true
		return fn(conn.WithContext(ctx))
	})
	if err != nil && !entered {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err = unavailableError(err)
		d.outage.fail(ctx, err)
		return fmt.Errorf("take a database connection: %w", err)
	}
	return err
}

// unavailable reports whether err means the database cannot be reached
// (as opposed to refusing a statement): a connection that could not be
// made or was lost, a statement deadline, a server shutting down or out of
// connections, an SQLite database locked past the busy timeout.
func unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, models.ErrStoreUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		pgconn.Timeout(err):
		return true
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		switch state := pg.SQLState(); {
		case strings.HasPrefix(state, "08"), // connection exception
			state == "57P01", state == "57P02", state == "57P03", // shutdown, crash, cannot connect now
			state == "53300": // too many connections
			return true
		}
		return false
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		code := lite.Code() & 0xff
		return code == sqliteBusy || code == sqliteLocked
	}
	// pgx reports a connection it closed after a failure as "conn closed".
	return strings.Contains(err.Error(), "conn closed")
}

// unavailableError wraps err as models.ErrStoreUnavailable (once). The
// driver's text stays in the message for the log, never for a client.
func unavailableError(err error) error {
	if errors.Is(err, models.ErrStoreUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %v", models.ErrStoreUnavailable, err)
}

// outageLog logs a database outage without flooding the log: the first
// failure at ERROR, then one ERROR line per interval with the count of
// failures in it, and one INFO line when a statement succeeds again.
type outageLog struct {
	log      *slog.Logger
	interval time.Duration
	now      func() time.Time

	mu       sync.Mutex
	down     bool
	since    time.Time // first failure of this outage
	lastLog  time.Time
	pending  int // failures since lastLog
	failures int // failures in this outage
}

func (o *outageLog) ok() {
	o.mu.Lock()
	if !o.down {
		o.mu.Unlock()
		return
	}
	failures, since := o.failures, o.since
	o.down, o.pending, o.failures = false, 0, 0
	o.mu.Unlock()
	o.log.Info("database available again", "failures", failures, "outage_seconds", int(o.now().Sub(since).Seconds()))
}

func (o *outageLog) fail(ctx context.Context, err error) {
	now := o.now()
	o.mu.Lock()
	o.failures++
	if !o.down {
		o.down, o.since, o.lastLog, o.pending = true, now, now, 0
		o.mu.Unlock()
		o.log.ErrorContext(ctx, "database unavailable: answering 503 until it is back", "error", err)
		return
	}
	o.pending++
	if now.Sub(o.lastLog) < o.interval {
		o.mu.Unlock()
		return
	}
	pending, failures, since := o.pending, o.failures, o.since
	o.lastLog, o.pending = now, 0
	o.mu.Unlock()
	o.log.ErrorContext(ctx, "database still unavailable", "failures_since_last_log", pending,
		"failures", failures, "outage_seconds", int(now.Sub(since).Seconds()), "error", err)
}
