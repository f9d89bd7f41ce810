package auth_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/internal/clocktest"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// cachedAuthenticator is an Authenticator over store with cache.
func cachedAuthenticator(t *testing.T, store auth.TokenStore, clk *clocktest.Clock, cache *auth.IdentityCache, opts ...auth.Option) *auth.Authenticator {
	t.Helper()
	a, err := auth.NewAuthenticator(store, testSecret, clk.Now, nil, append(opts, auth.WithIdentityCache(cache))...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func liveCache() *auth.IdentityCache {
	c := auth.NewNotifiedIdentityCache(0)
	c.SetLive(true)
	return c
}

// authenticateN authenticates raw n times and fails on any error.
func authenticateN(t *testing.T, a *auth.Authenticator, raw string, n int) *models.Identity {
	t.Helper()
	var id *models.Identity
	for range n {
		var err error
		if id, err = a.Authenticate(context.Background(), raw); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}
	return id
}

func TestIdentityCache_servesUntilTheRowChanges(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 1)
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
	cache := liveCache()
	a := cachedAuthenticator(t, store, clocktest.New(t0), cache)

	authenticateN(t, a, raw, 3)
	if n := len(store.findCalls()); n != 1 {
		t.Fatalf("store lookups = %d after 3 requests, want 1", n)
	}
	if st := cache.Stats(); st.Entries != 1 || st.Hits != 2 || st.Misses != 1 {
		t.Fatalf("stats = %+v, want 1 entry, 2 hits, 1 miss", st)
	}

	// Another token's change leaves the entry; this one's drops it.
	cache.Invalidate("p:12")
	authenticateN(t, a, raw, 1)
	if n := len(store.findCalls()); n != 1 {
		t.Fatalf("store lookups = %d after another token changed, want 1", n)
	}
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}, Revoked: true})
	cache.Invalidate("p:11")
	_, err := a.Authenticate(context.Background(), raw)
	wantAuthError(t, err, auth.Unauthenticated, "Personal access token was revoked. Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead.")
	if n := len(store.findCalls()); n != 2 {
		t.Fatalf("store lookups = %d after the revocation, want 2", n)
	}
}

func TestIdentityCache_userChangeDropsEveryCredentialOfTheUser(t *testing.T) {
	store := newFakeTokenStore()
	alice1, alice2, bob := mintToken(t, 1), mintToken(t, 2), mintToken(t, 3)
	store.add(alice1, &models.PersonalAccessToken{ID: 1, User: activeUser(), Scopes: []string{"mcp"}})
	store.add(alice2, &models.PersonalAccessToken{ID: 2, User: activeUser(), Scopes: []string{"mcp"}})
	other := &models.User{ID: 8, Username: "bob", State: models.UserActive}
	store.add(bob, &models.PersonalAccessToken{ID: 3, User: other, UserID: 7, Scopes: []string{"mcp"}}) // routable as user 7
	cache := liveCache()
	a := cachedAuthenticator(t, store, clocktest.New(t0), cache)
	for _, raw := range []string{alice1, alice2} {
		authenticateN(t, a, raw, 1)
	}
	if st := cache.Stats(); st.Entries != 2 {
		t.Fatalf("entries = %d, want 2", st.Entries)
	}

	blocked := activeUser()
	blocked.State = models.UserBlocked
	store.add(alice1, &models.PersonalAccessToken{ID: 1, User: blocked, Scopes: []string{"mcp"}})
	store.add(alice2, &models.PersonalAccessToken{ID: 2, User: blocked, Scopes: []string{"mcp"}})
	cache.Invalidate("u:7")
	if st := cache.Stats(); st.Entries != 0 {
		t.Fatalf("entries = %d after u:7, want 0", st.Entries)
	}
	for _, raw := range []string{alice1, alice2} {
		_, err := a.Authenticate(context.Background(), raw)
		wantAuthError(t, err, auth.UserForbidden, "Your account has been blocked. Ask an administrator to unblock it.")
	}
}

func TestIdentityCache_wholesaleDrops(t *testing.T) {
	for _, payload := range []string{"*", "p:", "x:1", "garbage", ""} {
		store := newFakeTokenStore()
		raw := mintToken(t, 1)
		store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
		cache := liveCache()
		a := cachedAuthenticator(t, store, clocktest.New(t0), cache)
		authenticateN(t, a, raw, 1)
		cache.Invalidate(payload)
		if st := cache.Stats(); st.Entries != 0 {
			t.Errorf("payload %q: entries = %d, want everything dropped", payload, st.Entries)
		}
	}
}

func TestIdentityCache_cachesNothingWhileNotLive(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 1)
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
	cache := auth.NewNotifiedIdentityCache(0) // the LISTEN connection is not up yet
	a := cachedAuthenticator(t, store, clocktest.New(t0), cache)

	authenticateN(t, a, raw, 2)
	if n := len(store.findCalls()); n != 2 {
		t.Fatalf("store lookups = %d before the listener is up, want 2 (no caching)", n)
	}
	cache.SetLive(true)
	authenticateN(t, a, raw, 2)
	if n := len(store.findCalls()); n != 3 {
		t.Fatalf("store lookups = %d once live, want 3", n)
	}
	cache.SetLive(false) // connection lost: drop, and stop caching
	if st := cache.Stats(); st.Entries != 0 || st.Live {
		t.Fatalf("stats after loss = %+v, want empty and not live", st)
	}
	authenticateN(t, a, raw, 2)
	if n := len(store.findCalls()); n != 5 {
		t.Fatalf("store lookups = %d while down, want 5", n)
	}
	cache.SetLive(true)
	authenticateN(t, a, raw, 2)
	if n := len(store.findCalls()); n != 6 {
		t.Fatalf("store lookups = %d after reconnecting, want 6", n)
	}
}

// changingStore runs during each lookup, as a change notified while a
// row is being read.
type changingStore struct {
	*fakeTokenStore
	during func()
}

func (s changingStore) FindTokenByDigest(ctx context.Context, digest string) (*models.PersonalAccessToken, error) {
	tok, err := s.fakeTokenStore.FindTokenByDigest(ctx, digest)
	s.during()
	return tok, err
}

func TestIdentityCache_doesNotStoreARowReadBeforeAChange(t *testing.T) {
	for _, change := range []func(*auth.IdentityCache){
		func(c *auth.IdentityCache) { c.Invalidate("p:11") },
		func(c *auth.IdentityCache) { c.Invalidate("u:99") }, // any change: the row may be stale
		func(c *auth.IdentityCache) { c.SetLive(false); c.SetLive(true) },
	} {
		fake := newFakeTokenStore()
		raw := mintToken(t, 1)
		fake.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
		cache := liveCache()
		a := cachedAuthenticator(t, changingStore{fake, func() { change(cache) }}, clocktest.New(t0), cache)
		authenticateN(t, a, raw, 1)
		if st := cache.Stats(); st.Entries != 0 {
			t.Errorf("entries = %d, want the row read before the change not stored", st.Entries)
		}
	}
}

func TestIdentityCache_expiryEvaluatedAtUse(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 1)
	exp := time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC) // expired from midnight of Sep 15
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}, ExpiresAt: &exp})
	clk := clocktest.New(t0)
	a := cachedAuthenticator(t, store, clk, liveCache())
	authenticateN(t, a, raw, 2)
	clk.Set(exp)
	_, err := a.Authenticate(context.Background(), raw)
	wantAuthError(t, err, auth.Unauthenticated, "Personal access token has expired. Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead.")
	if n := len(store.findCalls()); n != 1 {
		t.Fatalf("store lookups = %d, want 1 (expiry needs no lookup)", n)
	}
}

func TestIdentityCache_identitiesAreCopies(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 1)
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
	a := cachedAuthenticator(t, store, clocktest.New(t0), liveCache())
	id := authenticateN(t, a, raw, 1)
	id.User.Username = "mallory"
	id.User.State = models.UserBlocked
	if again := authenticateN(t, a, raw, 1); again.User.Username != "alice" || again.User.State != models.UserActive {
		t.Fatalf("second identity = %+v, want alice, active: a caller changed the cached row", again.User)
	}
}

func TestIdentityCache_versioned(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 1)
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
	var version atomic.Int64
	var versionErr atomic.Bool
	cache := auth.NewVersionedIdentityCache(0, func(context.Context) (int64, error) {
		if versionErr.Load() {
			return 0, errors.New("database is locked")
		}
		return version.Load(), nil
	})
	a := cachedAuthenticator(t, store, clocktest.New(t0), cache)
	authenticateN(t, a, raw, 3)
	if n := len(store.findCalls()); n != 1 {
		t.Fatalf("store lookups = %d, want 1", n)
	}
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}, Revoked: true})
	version.Add(1) // a trigger saw the change
	_, err := a.Authenticate(context.Background(), raw)
	wantAuthError(t, err, auth.Unauthenticated, "Personal access token was revoked. Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead.")

	// Without the version the cache is not used at all.
	versionErr.Store(true)
	before := len(store.findCalls())
	for range 2 {
		_, _ = a.Authenticate(context.Background(), raw)
	}
	if n := len(store.findCalls()) - before; n != 2 {
		t.Fatalf("store lookups = %d while the version cannot be read, want 2", n)
	}
}

func TestIdentityCache_boundedSize(t *testing.T) {
	store := newFakeTokenStore()
	cache := auth.NewNotifiedIdentityCache(2)
	cache.SetLive(true)
	a := cachedAuthenticator(t, store, clocktest.New(t0), cache)
	for i := range 5 {
		raw := mintToken(t, byte(i+1))
		store.add(raw, &models.PersonalAccessToken{ID: int64(i + 1), User: activeUser(), Scopes: []string{"mcp"}})
		authenticateN(t, a, raw, 1)
		if st := cache.Stats(); st.Entries > 2 {
			t.Fatalf("entries = %d, want at most 2", st.Entries)
		}
	}
}

func TestIdentityCache_OAuth(t *testing.T) {
	u := activeUser()
	raw := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	legacy := &models.OAuthAccessToken{ID: 31, ResourceOwnerID: &u.ID, User: u, CreatedAt: t0, ExpiresIn: intp(7200), Scopes: "mcp"}
	oauth := &fakeOAuthStore{byDigest: map[string]*models.OAuthAccessToken{auth.OAuthLegacyDigest(raw): legacy}}
	cache := liveCache()
	a := cachedAuthenticator(t, newFakeTokenStore(), clocktest.New(t0.Add(time.Minute)), cache, auth.WithOAuthTokens(oauth))
	authenticateN(t, a, raw, 3)
	if n := len(oauth.finds); n != 2 {
		t.Fatalf("OAuth lookups = %d after 3 requests, want 2 (SHA-512 then PBKDF2, once)", n)
	}
	cache.Invalidate("o:31")
	authenticateN(t, a, raw, 1)
	if n := len(oauth.finds); n != 4 {
		t.Fatalf("OAuth lookups = %d after o:31, want 4", n)
	}
	// Expiry (created_at + expires_in) is evaluated at use.
	a2 := cachedAuthenticator(t, newFakeTokenStore(), clocktest.New(t0.Add(3*time.Hour)), cache, auth.WithOAuthTokens(oauth))
	_, err := a2.Authenticate(context.Background(), raw)
	wantAuthError(t, err, auth.Unauthenticated, "OAuth access token has expired. Refresh it, or sign in again.")
}

// A refused user's row is not kept: the request after a reactivation
// commits passes, before (or without) the change notification.
func TestIdentityCache_refusedUsersAreNotCached(t *testing.T) {
	store := newFakeTokenStore()
	raw := mintToken(t, 1)
	off := activeUser()
	off.State = models.UserDeactivated
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: off, Scopes: []string{"mcp"}})
	cache := liveCache()
	a := cachedAuthenticator(t, store, clocktest.New(t0), cache)
	for range 2 {
		_, err := a.Authenticate(context.Background(), raw)
		wantAuthError(t, err, auth.UserForbidden, "Your account has been deactivated. Please log back in from a web browser to reactivate your account.")
	}
	if st := cache.Stats(); st.Entries != 0 {
		t.Fatalf("entries = %d for a deactivated user's token, want 0", st.Entries)
	}
	store.add(raw, &models.PersonalAccessToken{ID: 11, User: activeUser(), Scopes: []string{"mcp"}})
	authenticateN(t, a, raw, 1) // no Invalidate: nothing was cached
	if n := len(store.findCalls()); n != 3 {
		t.Fatalf("store lookups = %d, want 3 (each refused request read the row)", n)
	}
}
