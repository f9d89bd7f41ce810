package spec

import (
	"context"
	"database/sql"
	"net/http"
	"testing"
	"time"

	authsvc "gitlab.com/glmcp/glmcp/services/auth"
)

// The identity cache (issue #12): each instance answers a credential it
// has seen from memory, and every change that could alter it — made by
// any writer of the database — reaches every instance as a notification
// (PostgreSQL NOTIFY on glmcp_identity, sent by triggers). These specs run
// two instances on one PostgreSQL database and change rows with plain SQL,
// as an operator or another program would.

// cachePair is two instances on one PostgreSQL database, and a plain SQL
// connection to it.
type cachePair struct {
	a, b *harness
	db   *sql.DB
}

func startCachePair(t *testing.T) *cachePair {
	t.Helper()
	a := startServer(t)
	if a.Env.Embedded {
		t.Skip("cross-instance invalidation needs PostgreSQL (set GLMCP_TEST_DATABASE_URL)")
	}
	b := startServer(t, withStoreOf(a))
	db, err := sql.Open("pgx", a.Cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &cachePair{a: a, b: b, db: db}
}

// exec runs plain SQL.
func (p *cachePair) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := p.db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// list sends Modern tools/list with token to h's CE endpoint.
func cacheList(t *testing.T, h *harness, token string) *response {
	t.Helper()
	return h.send(t, call{Era: modern, Token: token, Method: "tools/list"})
}

// cachedOn asserts that token is now answered from h's cache: one more
// request is a hit, not a store lookup.
func cachedOn(t *testing.T, h *harness, token string) {
	t.Helper()
	c := h.Server.IdentityCache()
	before := c.Stats()
	cacheList(t, h, token).expectStatus(t, http.StatusOK)
	if after := c.Stats(); after.Hits != before.Hits+1 || after.Misses != before.Misses {
		t.Fatalf("cache stats %+v → %+v: want one hit, no miss", before, after)
	}
}

// awaitCache waits until h's cache stats satisfy ok: the notification
// round trip (commit → NOTIFY → the instance's LISTEN connection → cache).
// It returns how long that took.
func awaitCache(t *testing.T, h *harness, what string, ok func(authsvc.IdentityCacheStats) bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	for !ok(h.Server.IdentityCache().Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 10 s (stats %+v)", what, h.Server.IdentityCache().Stats())
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

// Ensure a token revoked with a plain SQL UPDATE is refused by the other
// instance on its next request after the notification arrives, though the
// token was in its cache, and by the instance that never saw it.
func TestIdentityCache_revokedByPlainSQL(t *testing.T) {
	p := startCachePair(t)
	raw, tok := authMint(t, p.a, "alice", []string{"mcp"}, authDay(7))
	for _, h := range []*harness{p.a, p.b} {
		cacheList(t, h, raw).expectStatus(t, http.StatusOK)
		cachedOn(t, h, raw)
	}
	drops := p.b.Server.IdentityCache().Stats().Drops

	p.exec(t, "UPDATE personal_access_tokens SET revoked = true WHERE id = $1", tok.ID)
	took := awaitCache(t, p.b, "revocation", func(s authsvc.IdentityCacheStats) bool { return s.Drops > drops })
	t.Logf("revocation reached the other instance %v after the commit", took)

	g := p.b.groups()[0]
	expect401(t, p.b, g, cacheList(t, p.b, raw), reasonRevoked)
	awaitCache(t, p.a, "revocation on A", func(s authsvc.IdentityCacheStats) bool { return s.Entries == 0 })
	expect401(t, p.a, p.a.groups()[0], cacheList(t, p.a, raw), reasonRevoked)

	// A scope change is a change too: the next request is judged on the
	// new scopes (read_user grants nothing on the MCP endpoint).
	raw2, tok2 := authMint(t, p.a, "alice", []string{"mcp"}, authDay(7))
	cacheList(t, p.b, raw2).expectStatus(t, http.StatusOK)
	cachedOn(t, p.b, raw2)
	drops = p.b.Server.IdentityCache().Stats().Drops
	p.exec(t, `UPDATE personal_access_tokens SET scopes = '["read_user"]' WHERE id = $1`, tok2.ID)
	awaitCache(t, p.b, "scope change", func(s authsvc.IdentityCacheStats) bool { return s.Drops > drops })
	expect403Scope(t, p.b, g, cacheList(t, p.b, raw2), "mcp")
}

// Ensure blocking a user with plain SQL refuses every credential of the
// user on the next request of the other instance.
func TestIdentityCache_blockedByPlainSQL(t *testing.T) {
	p := startCachePair(t)
	raw := p.a.Tokens["alice"]
	cacheList(t, p.b, raw).expectStatus(t, http.StatusOK)
	cachedOn(t, p.b, raw)
	drops := p.b.Server.IdentityCache().Stats().Drops

	p.exec(t, "UPDATE users SET state = 'blocked' WHERE username = 'alice'")
	awaitCache(t, p.b, "block", func(s authsvc.IdentityCacheStats) bool { return s.Drops > drops })
	expect403User(t, cacheList(t, p.b, raw), reasonBlocked)

	p.exec(t, "UPDATE users SET state = 'active' WHERE username = 'alice'")
	awaitCache(t, p.b, "unblock", func(s authsvc.IdentityCacheStats) bool { return s.Entries == 0 })
	cacheList(t, p.b, raw).expectStatus(t, http.StatusOK)
}

// Ensure nothing cached before a lost LISTEN connection is served after
// it: a revocation made while the connection was down (its notification
// never arrives) takes effect on the next request once the loss is seen.
func TestIdentityCache_lostListenConnection(t *testing.T) {
	p := startCachePair(t)
	raw, tok := authMint(t, p.a, "alice", []string{"mcp"}, authDay(7))
	cacheList(t, p.b, raw).expectStatus(t, http.StatusOK)
	cachedOn(t, p.b, raw)
	resets := p.b.Server.IdentityCache().Stats().Resets

	var killed int
	err := p.db.QueryRowContext(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'glmcp-catalog-listener' AND datname = current_database()`).Scan(&killed)
	if err != nil || killed != 2 {
		t.Fatalf("terminate the listeners' backends: killed %d, %v; want 2 (one per instance)", killed, err)
	}
	p.exec(t, "UPDATE personal_access_tokens SET revoked = true WHERE id = $1", tok.ID)

	// The loss drops everything and stops caching; the reconnection drops
	// again. Either way the next request reads the row.
	awaitCache(t, p.b, "loss noticed", func(s authsvc.IdentityCacheStats) bool { return s.Resets > resets })
	expect401(t, p.b, p.b.groups()[0], cacheList(t, p.b, raw), reasonRevoked)
	awaitCache(t, p.b, "listening again", func(s authsvc.IdentityCacheStats) bool { return s.Live })
	expect401(t, p.b, p.b.groups()[0], cacheList(t, p.b, raw), reasonRevoked)
	// And the cache works again after the reconnection. A lookup does
	// not store its answer when a notification arrived meanwhile (the
	// generation moved), and notifications from before the loss may still
	// be arriving: request until the answer is stored, then expect a hit.
	other := p.a.Tokens["bob"]
	deadline := time.Now().Add(10 * time.Second)
	for {
		before := p.b.Server.IdentityCache().Stats().Entries
		cacheList(t, p.b, other).expectStatus(t, http.StatusOK)
		if p.b.Server.IdentityCache().Stats().Entries > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cache stored nothing within 10 s after the reconnection (stats %+v)", p.b.Server.IdentityCache().Stats())
		}
	}
	cachedOn(t, p.b, other)
}
