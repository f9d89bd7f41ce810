package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// identityWrites makes, through the store, each change an identity cache
// must hear about, and a few it must not. want is the announcement each
// one makes ("" for none).
func identityWrites(t *testing.T, s *store.Store) []struct {
	name, want string
	do         func() error
} {
	ctx := context.Background()
	alice := mustCreateUser(t, s, "alice")
	tok := &models.PersonalAccessToken{UserID: alice.ID, Name: "laptop", TokenDigest: "digest-a", Scopes: models.StringList{models.ScopeMCP}}
	if err := s.Users.CreateToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	oauth := &models.OAuthAccessToken{ResourceOwnerID: &alice.ID, Token: "oauth-digest", Scopes: "mcp"}
	if err := s.Users.CreateOAuthToken(ctx, oauth); err != nil {
		t.Fatal(err)
	}
	id := func(p string, n int64) string { return p + ":" + itoa(n) }
	return []struct {
		name, want string
		do         func() error
	}{
		{"new user", "", func() error { mustCreateUser(t, s, "bob"); return nil }},
		{"last_used_at", "", func() error { return s.Users.TouchTokenLastUsed(ctx, tok.ID, time.Now()) }},
		{"revoke token", id("p", tok.ID), func() error { return s.Users.RevokeToken(ctx, tok.ID) }},
		{"revoke oauth token", id("o", oauth.ID), func() error { return s.Users.RevokeOAuthToken(ctx, oauth.ID) }},
		{"block user", id("u", alice.ID), func() error { return s.Users.SetUserState(ctx, "alice", models.UserBlocked) }},
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Ensure every writer's change to a token or user is announced on
// glmcp_identity, in the writer's transaction, and that last_used_at
// writes are not.
func TestIdentityChanges_postgresNotifies(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	s, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	writes := identityWrites(t, s)
	listener, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close(ctx)
	if _, err := listener.Exec(ctx, "LISTEN glmcp_identity"); err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := s.SQLDB()
	// next returns the next announcement: a write without one is followed
	// by the sentinel this test sends itself, so nothing waits on silence.
	next := func() string {
		if _, err := sqlDB.ExecContext(ctx, "SELECT pg_notify('glmcp_identity', 'sentinel')"); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		n, err := listener.WaitForNotification(wctx)
		if err != nil {
			t.Fatal(err)
		}
		if n.Payload != "sentinel" {
			if m, err := listener.WaitForNotification(wctx); err != nil || m.Payload != "sentinel" {
				t.Fatalf("after %q: %v, %v; want the sentinel", n.Payload, m, err)
			}
		}
		return n.Payload
	}
	for _, w := range writes {
		if err := w.do(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		want := w.want
		if want == "" {
			want = "sentinel"
		}
		if got := next(); got != want {
			t.Errorf("%s: announced %q, want %q", w.name, got, want)
		}
	}

	// A rolled-back change is never announced; plain SQL is; TRUNCATE
	// announces everything.
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE users SET state = 'active'"); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback()
	if got := next(); got != "sentinel" {
		t.Errorf("rolled-back update announced %q", got)
	}
	if _, err := sqlDB.ExecContext(ctx, "DELETE FROM personal_access_tokens"); err != nil {
		t.Fatal(err)
	}
	if got := next(); got[:2] != "p:" {
		t.Errorf("DELETE announced %q, want p:<id>", got)
	}
	if _, err := sqlDB.ExecContext(ctx, "TRUNCATE oauth_access_tokens"); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "*" {
		t.Errorf("TRUNCATE announced %q, want *", got)
	}
}

// Ensure the embedded store's identity version moves with every change
// that matters, from any writer, and not with last_used_at.
func TestIdentityChanges_sqliteVersion(t *testing.T) {
	s := storetest.OpenSQLite(t)
	ctx := context.Background()
	writes := identityWrites(t, s)
	version := func() int64 {
		v, err := s.Users.IdentityVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, w := range writes {
		before := version()
		if err := w.do(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if moved := version() != before; moved != (w.want != "") {
			t.Errorf("%s: version moved = %t, want %t", w.name, moved, w.want != "")
		}
	}
	sqlDB, _ := s.SQLDB()
	before := version()
	if _, err := sqlDB.ExecContext(ctx, "UPDATE personal_access_tokens SET scopes = '[\"api\"]'"); err != nil {
		t.Fatal(err)
	}
	if version() == before {
		t.Error("plain SQL scope change: version did not move")
	}
}
