package auth

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"gitlab.com/glmcp/glmcp/models"
)

// IdentityCache remembers, per credential digest, the token row and its
// user as the store returned them, so that a request whose credential was
// seen before costs no query. It never serves what the database no longer
// says:
//
//   - Every writer of the database (this instance, another one, the CLI,
//     plain SQL) fires triggers that announce the change: on PostgreSQL a
//     NOTIFY on [IdentityChannel] (see [IdentityCache.Invalidate] for the
//     payload), delivered by each instance's LISTEN connection; on the
//     embedded store a version counter (see [VersionSource]) read before
//     each use.
//   - With notifications, nothing is cached until the LISTEN connection
//     is up ([IdentityCache.SetLive]); everything is dropped when it is
//     lost and again when it is back, since changes made meanwhile were
//     not heard.
//   - An entry loaded before a change that was announced while it was
//     being loaded is not stored (a generation counter).
//   - Validity that depends on the clock (expires_at, a revocation time in
//     the future) is evaluated at every use, never cached.
//
// Unknown credentials are not cached: a token minted a moment ago works at
// once.
type IdentityCache struct {
	// version, when set, is read before every use (embedded store).
	version VersionSource
	max     int

	mu      sync.RWMutex
	live    bool
	gen     uint64 // bumped by every change heard
	ver     int64  // version the entries belong to (version mode)
	entries map[string]*cachedToken
	byToken map[tokenKey]string           // token → digest
	byUser  map[int64]map[string]struct{} // user id → digests

	hits, misses, drops, resets atomic.Int64
}

// VersionSource returns a number that changes whenever a row that
// identities depend on changes (the embedded store's identity_versions
// counter, maintained by triggers).
type VersionSource func(ctx context.Context) (int64, error)

// IdentityChannel is the PostgreSQL notification channel of identity
// changes (migrations: glmcp_identity_changed).
const IdentityChannel = "glmcp_identity"

// DefaultIdentityCacheSize bounds the number of cached credentials.
const DefaultIdentityCacheSize = 100_000

type tokenKey struct {
	oauth bool
	id    int64
}

// cachedToken is one credential's row: exactly one of pat and oauth.
type cachedToken struct {
	pat   *models.PersonalAccessToken
	oauth *models.OAuthAccessToken
}

func (e *cachedToken) key() tokenKey {
	if e.oauth != nil {
		return tokenKey{oauth: true, id: e.oauth.ID}
	}
	return tokenKey{id: e.pat.ID}
}

func (e *cachedToken) userID() int64 {
	if e.oauth != nil {
		if e.oauth.User == nil {
			return 0
		}
		return e.oauth.User.ID
	}
	return e.pat.UserID
}

// NewNotifiedIdentityCache returns a cache fed by Invalidate and SetLive
// (PostgreSQL). It caches nothing until SetLive(true).
func NewNotifiedIdentityCache(size int) *IdentityCache {
	return newIdentityCache(size, nil, false)
}

// NewVersionedIdentityCache returns a cache that reads version before
// every use and drops everything when it moved (embedded store).
func NewVersionedIdentityCache(size int, version VersionSource) *IdentityCache {
	return newIdentityCache(size, version, true)
}

func newIdentityCache(size int, version VersionSource, live bool) *IdentityCache {
	if size <= 0 {
		size = DefaultIdentityCacheSize
	}
	c := &IdentityCache{version: version, max: size, live: live}
	c.reset()
	return c
}

// reset drops every entry; c.mu must be held (or c not yet shared).
func (c *IdentityCache) reset() {
	c.entries = make(map[string]*cachedToken)
	c.byToken = make(map[tokenKey]string)
	c.byUser = make(map[int64]map[string]struct{})
	c.gen++
}

// SetLive tells the cache whether change notifications are being heard.
// Any change of state drops every entry; while not live nothing is stored.
func (c *IdentityCache) SetLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.drops.Add(int64(len(c.entries)))
	c.resets.Add(1)
	c.reset()
}

// Invalidate applies one change notification. The payload is compact:
// "p:<id>" a personal access token row changed or went away, "o:<id>" an
// OAuth access token row, "u:<id>" a user (every credential of the user is
// dropped), "*" anything (a TRUNCATE). Anything else drops everything: a
// payload this version does not understand must not leave stale entries.
func (c *IdentityCache) Invalidate(payload string) {
	kind, idText, _ := strings.Cut(payload, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	switch {
	case kind == "p" && err == nil:
		c.dropToken(tokenKey{id: id})
	case kind == "o" && err == nil:
		c.dropToken(tokenKey{oauth: true, id: id})
	case kind == "u" && err == nil:
		for digest := range c.byUser[id] {
			c.drop(digest)
		}
	default:
		c.drops.Add(int64(len(c.entries)))
		c.reset()
	}
}

func (c *IdentityCache) dropToken(k tokenKey) {
	if digest, ok := c.byToken[k]; ok {
		c.drop(digest)
	}
}

// drop removes one entry and its index rows; c.mu must be held.
func (c *IdentityCache) drop(digest string) {
	e, ok := c.entries[digest]
	if !ok {
		return
	}
	delete(c.entries, digest)
	delete(c.byToken, e.key())
	if set := c.byUser[e.userID()]; set != nil {
		delete(set, digest)
		if len(set) == 0 {
			delete(c.byUser, e.userID())
		}
	}
	c.drops.Add(1)
}

// lookup returns the entry for digest, or a ticket to store what the
// caller is about to load. ok is false when the cache must not be used
// for this request (not live, or the version could not be read).
func (c *IdentityCache) lookup(ctx context.Context, digest string) (e *cachedToken, t ticket, ok bool) {
	if c == nil {
		return nil, ticket{}, false
	}
	if c.version != nil {
		v, err := c.version(ctx)
		if err != nil {
			return nil, ticket{}, false // the store will answer (or fail) itself
		}
		c.mu.RLock()
		moved := v != c.ver
		c.mu.RUnlock()
		if moved {
			c.mu.Lock()
			if v != c.ver {
				c.drops.Add(int64(len(c.entries)))
				c.reset()
				c.ver = v
			}
			c.mu.Unlock()
		}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.live {
		return nil, ticket{}, false
	}
	if e, ok := c.entries[digest]; ok {
		c.hits.Add(1)
		return e, ticket{}, true
	}
	c.misses.Add(1)
	return nil, ticket{digest: digest, gen: c.gen}, true
}

// ticket lets a caller store what it loaded after a miss, unless a change
// was heard in between.
type ticket struct {
	digest string
	gen    uint64
}

// store keeps e under t's digest when nothing changed since the miss.
func (c *IdentityCache) store(t ticket, e *cachedToken) {
	if c == nil || t.digest == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.gen != t.gen {
		return
	}
	if len(c.entries) >= c.max {
		c.drops.Add(int64(len(c.entries)))
		c.reset()
		return // the generation moved; the next miss stores again
	}
	c.drop(t.digest)
	c.entries[t.digest] = e
	c.byToken[e.key()] = t.digest
	u := e.userID()
	if c.byUser[u] == nil {
		c.byUser[u] = make(map[string]struct{}, 1)
	}
	c.byUser[u][t.digest] = struct{}{}
}

// IdentityCacheStats are counters for metrics and tests.
type IdentityCacheStats struct {
	Entries int
	Live    bool
	// Hits and Misses count lookups while live; Drops counts entries
	// removed by changes; Resets counts SetLive calls.
	Hits, Misses, Drops, Resets int64
}

// Stats returns the cache's counters.
func (c *IdentityCache) Stats() IdentityCacheStats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return IdentityCacheStats{Entries: len(c.entries), Live: c.live,
		Hits: c.hits.Load(), Misses: c.misses.Load(), Drops: c.drops.Load(), Resets: c.resets.Load()}
}
