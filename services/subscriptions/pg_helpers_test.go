package subscriptions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// newTestDatabase creates an empty database on the server named by
// GLMCP_TEST_DATABASE_URL, drops it when the test ends, and returns its DSN
// and name. Without the variable the test is skipped (failed when CI=true).
func newTestDatabase(t *testing.T) (dsn, name string) {
	t.Helper()
	adminDSN := os.Getenv("GLMCP_TEST_DATABASE_URL")
	if adminDSN == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("GLMCP_TEST_DATABASE_URL is not set (required when CI=true)")
		}
		t.Skip("GLMCP_TEST_DATABASE_URL not set, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	name = "glmcp_test_" + hex.EncodeToString(b)

	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	admin, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		t.Fatalf("connect to GLMCP_TEST_DATABASE_URL: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		admin, err := pgx.Connect(ctx, adminDSN)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return withParam(t, adminDSN, "dbname", name), name
}

// withParam sets a connection parameter in a URL or keyword/value DSN.
func withParam(t *testing.T, dsn, key, value string) string {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " " + key + "=" + value // later keywords win
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse GLMCP_TEST_DATABASE_URL: invalid URL")
	}
	if key == "dbname" {
		u.Path = "/" + value
		return u.String()
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// startListener runs l until the test ends and waits for its first LISTEN.
func startListener(t *testing.T, l *PGListener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run() = %v, want nil after cancel", err)
			}
		case <-time.After(waitTimeout):
			t.Errorf("Run() did not return within %v of cancel", waitTimeout)
		}
	})
	select {
	case <-l.Ready():
	case err := <-done:
		t.Fatalf("Run() returned %v before LISTEN was active", err)
	case <-time.After(waitTimeout):
		t.Fatalf("LISTEN not active within %v", waitTimeout)
	}
}

// receive waits for the next event on s.
func receive(t *testing.T, s *Subscription) Event {
	t.Helper()
	select {
	case e, ok := <-s.C():
		if !ok {
			t.Fatal("subscription channel closed, want an event")
		}
		return e
	case <-time.After(waitTimeout):
		t.Fatalf("no event within %v", waitTimeout)
		return Event{}
	}
}

// fastListener returns a listener with short backoffs for tests.
func fastListener(dsn string, h *Hub) *PGListener {
	l := NewPGListener(dsn, h, nil)
	l.minBackoff = 10 * time.Millisecond
	l.maxBackoff = 200 * time.Millisecond
	return l
}
