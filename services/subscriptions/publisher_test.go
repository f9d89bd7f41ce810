package subscriptions

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// fakeExecer records statements; err is returned from every call.
type fakeExecer struct {
	queries []string
	args    [][]any
	err     error
}

func (f *fakeExecer) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	f.queries = append(f.queries, query)
	f.args = append(f.args, args)
	return nil, f.err
}

func TestPGPublisher_Publish(t *testing.T) {
	t.Parallel()
	db := &fakeExecer{}
	p := NewPGPublisher(db)
	err := p.Publish(context.Background(), Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: 9})
	if err != nil {
		t.Fatalf("Publish() error = %v", err)
	}
	if len(db.queries) != 1 || db.queries[0] != "SELECT pg_notify($1, $2)" {
		t.Fatalf("queries = %q, want one pg_notify", db.queries)
	}
	wantArgs := []any{"glmcp_catalog", `{"kind":"tools","tool":"get_issue","edition":"ce","version":9}`}
	if got := db.args[0]; len(got) != 2 || got[0] != wantArgs[0] || got[1] != wantArgs[1] {
		t.Fatalf("args = %q, want %q", got, wantArgs)
	}
}

func TestPGPublisher_Publish_errors(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("connection reset")

	db := &fakeExecer{}
	if err := NewPGPublisher(db).Publish(context.Background(), Event{Kind: "bogus"}); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("invalid event: error = %v, want ErrInvalidInput", err)
	}
	if len(db.queries) != 0 {
		t.Fatalf("invalid event reached the database: %q", db.queries)
	}

	failing := &fakeExecer{err: errBoom}
	if err := NewPGPublisher(failing).Publish(context.Background(), Event{Kind: KindResync}); !errors.Is(err, errBoom) {
		t.Fatalf("driver failure: error = %v, want it wrapped", err)
	}

	if err := NewPGPublisher(nil).Publish(context.Background(), Event{Kind: KindResync}); err == nil {
		t.Fatal("nil database: error = nil, want an error")
	}
}

func TestLocalPublisher_Publish(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	s := mustSubscribe(t, h, 1)
	p := LocalPublisher(h)

	e := Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: 1}
	if err := p.Publish(context.Background(), e); err != nil {
		t.Fatalf("Publish() error = %v", err)
	}
	if got := pending(t, s); got != e {
		t.Fatalf("got %+v, want %+v", got, e)
	}
	if err := p.Publish(context.Background(), Event{Kind: "bogus"}); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("invalid event: error = %v, want ErrInvalidInput", err)
	}
	select {
	case got := <-s.C():
		t.Fatalf("invalid event delivered: %+v", got)
	default:
	}
}
