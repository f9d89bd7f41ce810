package subscriptions

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", as gorm uses

	"gitlab.com/glmcp/glmcp/models"
)

func TestPGListener_crossInstance(t *testing.T) {
	dsn, dbName := newTestDatabase(t)
	ctx := context.Background()

	// Two serving instances, each with its own hub and listener.
	hubA, hubB := NewHub(Options{}), NewHub(Options{})
	listenerA := fastListener(withParam(t, dsn, "application_name", "glmcp-test-a"), hubA)
	listenerB := fastListener(withParam(t, dsn, "application_name", "glmcp-test-b"), hubB)
	startListener(t, listenerA)
	startListener(t, listenerB)
	subA := mustSubscribe(t, hubA, 1)
	subB := mustSubscribe(t, hubB, 1)
	subCE, err := hubB.Subscribe(2, ceOnly)
	if err != nil {
		t.Fatal(err)
	}

	// A third process (the CLI) publishes.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pub := NewPGPublisher(db)

	publish := func(e Event) {
		t.Helper()
		if err := pub.Publish(ctx, e); err != nil {
			t.Fatalf("Publish(%+v) error = %v", e, err)
		}
	}
	expect := func(s *Subscription, want Event) {
		t.Helper()
		if got := receive(t, s); got != want {
			t.Fatalf("user %d got %+v, want %+v", s.userID, got, want)
		}
	}

	t.Log("when the CLI publishes an EE change every instance's listener that can see it gets it")
	eeChange := Event{Kind: KindTools, Tool: "semantic_code_search", Edition: models.EditionEE, Version: 7}
	publish(eeChange)
	expect(subA, eeChange)
	expect(subB, eeChange)

	t.Log("when a malformed notification arrives it is ignored")
	for _, bad := range []string{"not json", `{"kind":"prompts"}`, `{"kind":"tools","edition":"pro"}`} {
		if _, err := db.ExecContext(ctx, "SELECT pg_notify($1, $2)", Channel, bad); err != nil {
			t.Fatal(err)
		}
	}
	ceChange := Event{Kind: KindTools, Tool: "get_issue", Edition: models.EditionCE, Version: 8}
	publish(ceChange)
	expect(subA, ceChange) // the first thing received: nothing came of the bad ones
	expect(subB, ceChange)
	expect(subCE, ceChange) // and the CE listener never saw the EE change

	t.Log("when instance A's connection is killed it reconnects and tells its listeners to resync")
	var killed int
	err = db.QueryRowContext(ctx,
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
		dbName, "glmcp-test-a").Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("terminate listener A backend: killed %d, error %v; want 1, nil", killed, err)
	}
	expect(subA, Event{Kind: KindResync})

	t.Log("after the reconnect A receives again, and B (not disconnected) got no resync")
	change := Event{Kind: KindTools, Tool: "search", Edition: models.EditionCE, Version: 9}
	publish(change)
	expect(subA, change)
	expect(subB, change)
	expect(subCE, change)
}

func TestPGListener_transactionalPublish(t *testing.T) {
	dsn, _ := newTestDatabase(t)
	ctx := context.Background()
	hub := NewHub(Options{})
	startListener(t, fastListener(dsn, hub))
	sub := mustSubscribe(t, hub, 1)

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	rolledBack := Event{Kind: KindTools, Tool: "rolled_back", Edition: models.EditionCE}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewPGPublisher(tx).Publish(ctx, rolledBack); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	committed := Event{Kind: KindTools, Tool: "committed", Edition: models.EditionCE}
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewPGPublisher(tx).Publish(ctx, committed); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, sub); got != committed {
		t.Fatalf("got %+v, want only the committed event %+v", got, committed)
	}
}

func TestPGListener_Run_stopsCleanly(t *testing.T) {
	dsn, _ := newTestDatabase(t)
	before := runtime.NumGoroutine()

	hub := NewHub(Options{})
	l := fastListener(dsn, hub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	select {
	case <-l.Ready():
	case <-time.After(waitTimeout):
		t.Fatalf("LISTEN not active within %v", waitTimeout)
	}
	if err := l.Run(ctx); err == nil {
		t.Fatal("second concurrent Run() = nil, want an error")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run() = %v, want nil", err)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("Run() did not return within %v of cancel", waitTimeout)
	}
	waitGoroutines(t, before)
}

func TestPGListener_Run_badDSN(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-pw"
	l := NewPGListener("postgres://u:"+secret+"@127.0.0.1:5432/db?sslmode=bogus", NewHub(Options{}), nil)
	err := l.Run(context.Background())
	if !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("Run() error = %v, want ErrInvalidInput", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("Run() error %q repeats the password", err)
	}
}

func TestPGListener_Run_retriesUnreachableDatabase(t *testing.T) {
	t.Parallel()
	logs := &recordingHandler{records: make(chan slog.Record, 100)}
	// Port 1 on loopback: connection refused at once.
	l := NewPGListener("postgres://postgres:hunter2@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=5",
		NewHub(Options{}), slog.New(logs))
	l.minBackoff = time.Millisecond
	l.maxBackoff = 5 * time.Millisecond

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()

	for attempt := 1; attempt <= 3; attempt++ {
		select {
		case r := <-logs.records:
			if r.Message != "catalog listener disconnected; reconnecting" {
				t.Fatalf("log %d = %q, want a reconnect warning", attempt, r.Message)
			}
			r.Attrs(func(a slog.Attr) bool {
				if strings.Contains(a.Value.String(), "hunter2") {
					t.Errorf("log attribute %s = %q repeats the password", a.Key, a.Value)
				}
				return true
			})
		case err := <-done:
			t.Fatalf("Run() returned %v while the database is unreachable; want it to retry", err)
		case <-time.After(waitTimeout):
			t.Fatalf("no reconnect attempt %d within %v", attempt, waitTimeout)
		}
	}
	select {
	case <-l.Ready():
		t.Fatal("Ready() closed without a LISTEN")
	default:
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run() = %v, want nil", err)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("Run() did not return within %v of cancel", waitTimeout)
	}
}

func TestJitter(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, 1, 3, 100 * time.Millisecond, 5 * time.Second} {
		for range 100 {
			if got := jitter(d); got < d/2 || got > d {
				t.Fatalf("jitter(%v) = %v, want within [%v, %v]", d, got, d/2, d)
			}
		}
	}
}

// recordingHandler forwards every record to a channel.
type recordingHandler struct{ records chan slog.Record }

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.records <- r.Clone():
	default: // the test stopped reading
	}
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

// Ensure a channel registered with Handle is LISTENed on the same
// connection and its payloads reach the handler, and that OnState reports
// the connection: up before anything is delivered, down as soon as it is
// lost, up again after the reconnection.
func TestPGListener_handlersAndState(t *testing.T) {
	dsn, dbName := newTestDatabase(t)
	ctx := context.Background()
	l := fastListener(withParam(t, dsn, "application_name", "glmcp-test-h"), NewHub(Options{}))
	payloads := make(chan string, 10)
	states := make(chan bool, 10)
	l.Handle("glmcp_identity", func(p string) { payloads <- p })
	l.OnState(func(up bool) { states <- up })
	startListener(t, l)
	expectState := func(want bool) {
		t.Helper()
		select {
		case got := <-states:
			if got != want {
				t.Fatalf("state = %t, want %t", got, want)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("no state change to %t", want)
		}
	}
	expectState(true)

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	notify := func(payload string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, "SELECT pg_notify('glmcp_identity', $1)", payload); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-payloads:
			if got != payload {
				t.Fatalf("payload = %q, want %q", got, payload)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("payload %q not delivered", payload)
		}
	}
	notify("p:1")

	var killed int
	err = db.QueryRowContext(ctx,
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
		dbName, "glmcp-test-h").Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("terminate the listener's backend: killed %d, %v; want 1", killed, err)
	}
	expectState(false)
	expectState(true)
	notify("u:2")
}
