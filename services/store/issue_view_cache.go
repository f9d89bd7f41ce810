package store

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"gitlab.com/glmcp/glmcp/models"
)

// IssueViewChannel is the PostgreSQL notification channel of issue view
// changes (migration 20261201180000, glmcp_view_changed).
const IssueViewChannel = "glmcp_views"

// DefaultIssueViewCacheSize bounds the number of cached issue views.
const DefaultIssueViewCacheSize = 10_000

// DefaultIssueViewCacheBytes bounds the memory the cached issue views
// hold, as estimated by issueViewBytes: 10,000 views of small issues fit
// (a few KiB each); views of large descriptions (up to 1 MB each) take
// the room of many.
const DefaultIssueViewCacheBytes = 64 << 20

// IssueViewCache keeps what FindIssueView read, per project (id or path as
// asked), issue iid and caller, so that get_issue of an issue seen before
// costs no round trip. It never serves what the database no longer says
// beyond one notification round trip:
//
//   - Every writer of the database (this instance, another one, the CLI,
//     plain SQL) fires triggers on every table a view is read from; they
//     NOTIFY on [IssueViewChannel] (see [IssueViewCache.Invalidate] for the
//     payload), delivered by each instance's LISTEN connection.
//   - The store's write methods that change a table a view is read from
//     invalidate what they changed (the projects or users they touched,
//     or everything when that cannot be told) as soon as they commit, so
//     that a client reads its own writes without waiting for the
//     notification: a write outside a transaction at once, one inside a
//     transaction ([Store.WithTx]; its savepoints count as itself) when it
//     ends. What writes other tables only, or only reads, leaves the cache
//     as it is; so does SQL run on [Store.DB] (its notification drops what
//     it changed).
//   - Nothing is cached until the LISTEN connection is up
//     ([IssueViewCache.SetLive]); everything is dropped when it is lost and
//     again when it is back, since changes made meanwhile were not heard.
//   - A view read before a change that was heard while it was being read
//     is not stored (a generation counter).
//
// The embedded store has no LISTEN connection: its cache
// ([NewVersionedIssueViewCache]) is kept true by marks instead. Triggers
// (SQLite migration 20261201200000) on the same tables, fired by every
// writer of the file in its own transaction, stamp the changed project
// (or, for a user, a group or a group membership, every project) with the
// next value of a sequence. Each view remembers the sequence read before
// it was read, and each use first reads its project's mark and the global
// one (one statement, two rows by primary key): a mark past the view's
// sequence drops it and reads the file again. The Store's own writes need
// no clearing there: their marks commit with them.
//
// Only what the database holds is cached: the permission checks run on
// every call, on the caller as the identity cache has it now and on the
// cached project, role and issue. Views that were not found (a missing
// project or issue) are not cached.
type IssueViewCache struct {
	max int
	// maxBytes bounds bytes, the sum of the entries' estimated sizes.
	maxBytes int64
	// versioned: kept true by the embedded store's marks, not by
	// notifications; always live.
	versioned bool

	mu      sync.RWMutex
	live    bool
	gen     uint64 // bumped by every change heard
	entries map[issueViewKey]issueViewEntry
	bytes   int64
	// index finds the entries a notification names: by issue id, project
	// id and user id (caller, author and assignees).
	index map[indexKey]map[issueViewKey]struct{}

	hits, misses, drops, resets atomic.Int64
}

// issueViewKey is what FindIssueView was asked: a project by id or (when
// projectID is 0) by path exactly as given, an iid, a caller.
type issueViewKey struct {
	projectID int64
	path      string
	iid       int64
	userID    int64
}

// issueViewEntry is one cached view, its estimated size
// (issueViewBytes) and, on the embedded store, the sequence read before it
// was read (see issue_view_versions).
type issueViewEntry struct {
	v    *models.IssueView
	seq  int64
	size int64
}

type indexKey struct {
	kind byte // 'i' issue, 'p' project, 'u' user
	id   int64
}

// NewIssueViewCache returns a cache of at most size views (0:
// DefaultIssueViewCacheSize) holding at most about maxBytes bytes (0:
// DefaultIssueViewCacheBytes), fed by Invalidate and SetLive. It caches
// nothing until SetLive(true).
func NewIssueViewCache(size int, maxBytes int64) *IssueViewCache {
	if size <= 0 {
		size = DefaultIssueViewCacheSize
	}
	if maxBytes <= 0 {
		maxBytes = DefaultIssueViewCacheBytes
	}
	c := &IssueViewCache{max: size, maxBytes: maxBytes}
	c.reset()
	return c
}

// NewVersionedIssueViewCache returns a cache of at most size views and
// about maxBytes bytes (0: the defaults, as NewIssueViewCache) for the
// embedded store, kept true by the marks its triggers write (see
// IssueViewCache); it is live from the start and needs neither Invalidate
// nor SetLive.
func NewVersionedIssueViewCache(size int, maxBytes int64) *IssueViewCache {
	c := NewIssueViewCache(size, maxBytes)
	c.versioned, c.live = true, true
	return c
}

// reset drops every entry; c.mu must be held (or c not yet shared).
func (c *IssueViewCache) reset() {
	c.drops.Add(int64(len(c.entries)))
	c.entries = make(map[issueViewKey]issueViewEntry)
	c.index = make(map[indexKey]map[issueViewKey]struct{})
	c.bytes = 0
	c.gen++
}

// SetLive tells the cache whether change notifications are being heard.
// Any change of state drops every entry; while not live nothing is stored.
func (c *IssueViewCache) SetLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.resets.Add(1)
	c.reset()
}

// Invalidate applies one change notification. The payload is compact:
// "i:<issue id>" the issue, its assignees or its notes changed; "p:<project
// id>" the project or its direct members; "u:<user id>" the user or the
// user's group memberships (every view the user reads, authored or is
// assigned to); "*" anything. Anything else drops everything: a payload
// this version does not understand must not leave stale entries.
func (c *IssueViewCache) Invalidate(payload string) {
	kind, idText, _ := strings.Cut(payload, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if err == nil && len(kind) == 1 && strings.Contains("ipu", kind) {
		for k := range c.index[indexKey{kind: kind[0], id: id}] {
			c.drop(k)
		}
		return
	}
	c.reset()
}

// Clear drops every entry.
func (c *IssueViewCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset()
}

// drop removes one entry and its index rows; c.mu must be held.
func (c *IssueViewCache) drop(k issueViewKey) {
	e, ok := c.entries[k]
	if !ok {
		return
	}
	delete(c.entries, k)
	c.bytes -= e.size
	forEachIndex(k, e.v, func(ik indexKey) {
		if set := c.index[ik]; set != nil {
			delete(set, k)
			if len(set) == 0 {
				delete(c.index, ik)
			}
		}
	})
	c.drops.Add(1)
}

// forEachIndex calls fn with every index row of the entry k → v.
func forEachIndex(k issueViewKey, v *models.IssueView, fn func(indexKey)) {
	fn(indexKey{'i', v.Issue.ID})
	fn(indexKey{'p', v.Project.ID})
	fn(indexKey{'u', k.userID})
	fn(indexKey{'u', v.Issue.AuthorID})
	for _, a := range v.Issue.Assignees {
		fn(indexKey{'u', a.ID})
	}
}

// lookup returns the entry for k (v nil if none) and a ticket to store
// what the caller is about to read. ok is false when the cache must not
// be used (not live). The caller counts the hit or miss.
func (c *IssueViewCache) lookup(k issueViewKey) (e issueViewEntry, gen uint64, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.live {
		return issueViewEntry{}, 0, false
	}
	return c.entries[k], c.gen, true
}

// dropStale drops k if it still holds the view v (a mark moved past it).
func (c *IssueViewCache) dropStale(k issueViewKey, v *models.IssueView) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[k].v == v {
		c.drop(k)
	}
}

// store keeps e under k when nothing changed since the miss that gave
// gen. When the cache is full, by count or by bytes, arbitrary entries
// make room; a view larger than the whole byte budget is not kept.
func (c *IssueViewCache) store(k issueViewKey, gen uint64, e issueViewEntry) {
	v := e.v
	e.size = issueViewBytes(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.gen != gen {
		return
	}
	c.drop(k)
	if e.size > c.maxBytes {
		return
	}
	for victim := range c.entries {
		if len(c.entries) < c.max && c.bytes+e.size <= c.maxBytes {
			break
		}
		c.drop(victim)
	}
	c.entries[k] = e
	c.bytes += e.size
	forEachIndex(k, v, func(ik indexKey) {
		set := c.index[ik]
		if set == nil {
			set = make(map[issueViewKey]struct{}, 1)
			c.index[ik] = set
		}
		set[k] = struct{}{}
	})
}

// issueViewEntryBytes is what a cached view costs besides its text: the
// structs, the map entry, its index rows; issueViewAssigneeBytes what each
// assignee adds.
const (
	issueViewEntryBytes    = 1024
	issueViewAssigneeBytes = 256
)

// issueViewBytes estimates the memory a cached view holds: its text (every
// string of the project, issue, author and assignees) three times — the
// view, and the rendered answer get_issue keeps with it (IssueView.Memo:
// its text and its structured copy) — and a fixed cost per view and
// assignee. The text dominates for large descriptions, which is what the
// byte budget is for.
func issueViewBytes(v *models.IssueView) int64 {
	n := int64(issueViewEntryBytes)
	text := stringBytes(reflect.ValueOf(v.Project), 2) + stringBytes(reflect.ValueOf(v.Issue), 2)
	if v.Issue != nil {
		n += int64(len(v.Issue.Assignees)) * issueViewAssigneeBytes
	}
	return n + 3*text
}

// stringBytes sums the lengths of the strings in v, following pointers,
// structs and slices (depth levels of pointers and slices deep).
func stringBytes(v reflect.Value, depth int) int64 {
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() || depth == 0 {
			return 0
		}
		return stringBytes(v.Elem(), depth-1)
	case reflect.Struct:
		var n int64
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				n += stringBytes(v.Field(i), depth)
			}
		}
		return n
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return int64(v.Len())
		}
		if depth == 0 {
			return 0
		}
		var n int64
		for i := 0; i < v.Len(); i++ {
			n += stringBytes(v.Index(i), depth-1)
		}
		return n
	}
	return 0
}

// IssueViewCacheStats are counters for metrics and tests.
type IssueViewCacheStats struct {
	Entries int
	// Bytes is the cached views' estimated size (see
	// DefaultIssueViewCacheBytes).
	Bytes int64
	Live  bool
	// Hits and Misses count lookups while live; Drops counts entries
	// removed by changes, local writes and evictions (by count or by
	// bytes); Resets counts SetLive calls.
	Hits, Misses, Drops, Resets int64
}

// Stats returns the cache's counters.
func (c *IssueViewCache) Stats() IssueViewCacheStats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return IssueViewCacheStats{Entries: len(c.entries), Bytes: c.bytes, Live: c.live,
		Hits: c.hits.Load(), Misses: c.misses.Load(), Drops: c.drops.Load(), Resets: c.resets.Load()}
}

// cachedIssueViews is the issue view reader (next) with an IssueViewCache
// in front of it: it answers what the cache holds, and keeps what next
// reads.
type cachedIssueViews struct {
	cache *IssueViewCache
	next  *Issues
}

// FindIssueView is Issues.FindIssueView, answered from the cache when it
// can be.
func (d cachedIssueViews) FindIssueView(ctx context.Context, projectID int64, path string, iid, userID int64) (*models.IssueView, bool, error) {
	c := d.cache
	k := issueViewKey{projectID: projectID, iid: iid, userID: userID}
	if projectID == 0 {
		k.path = path
	}
	if c.versioned {
		return d.findVersioned(ctx, k, path)
	}
	e, gen, ok := c.lookup(k)
	if e.v != nil {
		c.hits.Add(1)
		return e.v, true, nil
	}
	if ok {
		c.misses.Add(1)
	}
	v, found, err := d.next.findIssueView(ctx, projectID, path, iid, userID)
	if ok && found {
		c.store(k, gen, issueViewEntry{v: v})
	}
	return v, found, err
}

// issueViewSlot holds the cache a Store (and every copy of it: At,
// transactions) uses.
type issueViewSlot struct {
	cache atomic.Pointer[IssueViewCache]
}

// UseIssueViewCache makes FindIssueView answer from c (nil: no cache).
// The write methods of every family that change what a view is read from
// invalidate what they changed in c (changedViews). Call it before the
// Store is used concurrently.
func (s *Issues) UseIssueViewCache(c *IssueViewCache) { s.views.cache.Store(c) }

// get returns the cache in use, or nil.
func (slot *issueViewSlot) get() *IssueViewCache {
	if slot == nil {
		return nil
	}
	return slot.cache.Load()
}

// findVersioned is FindIssueView with a versioned cache (the
// embedded store). A cached view was read after the sequence said
// e.seq; it is answered while the marks of its project and of everything
// are not past e.seq:
//
//   - without a statement when the request already read the sequence
//     (WithRequestMarks: the identity version's statement reads it too)
//     and it still says e.seq: nothing at all changed since;
//   - otherwise after one statement reading both marks and the sequence,
//     which then renews the view to the sequence it read.
//
// A view whose marks moved is dropped and the file read again, after the
// sequence (the request's, when it has one: a view newer than the
// sequence it carries is only dropped sooner).
func (d cachedIssueViews) findVersioned(ctx context.Context, k issueViewKey, path string) (*models.IssueView, bool, error) {
	c, s := d.cache, d.next
	e, gen, ok := c.lookup(k)
	if !ok {
		return s.findIssueView(ctx, k.projectID, path, k.iid, k.userID)
	}
	reqSeq, reqOK := requestSeq(ctx)
	if e.v != nil {
		if reqOK && reqSeq == e.seq {
			c.hits.Add(1)
			return e.v, true, nil
		}
		mark, seq, err := s.viewMarks(ctx, e.v.Project.ID)
		if err != nil {
			return s.findIssueView(ctx, k.projectID, path, k.iid, k.userID) // the store answers (or fails) itself
		}
		noteRequestSeq(ctx, seq)
		if mark <= e.seq {
			c.renew(k, e.v, seq)
			c.hits.Add(1)
			return e.v, true, nil
		}
		c.dropStale(k, e.v)
		reqSeq, reqOK = seq, true
	}
	c.misses.Add(1)
	if !reqOK {
		var err error
		if reqSeq, err = s.viewSeq(ctx); err != nil {
			return s.findIssueView(ctx, k.projectID, path, k.iid, k.userID)
		}
	}
	v, found, err := s.findIssueView(ctx, k.projectID, path, k.iid, k.userID)
	if found {
		c.store(k, gen, issueViewEntry{v: v, seq: reqSeq})
	}
	return v, found, err
}

// The embedded store's issue view marks (SQLite migration 20261201200000).
const (
	// viewSeqQuery reads the sequence.
	viewSeqQuery = "SELECT version FROM issue_view_versions WHERE id = -1"
	// viewMarksQuery reads the latest mark of a project and of everything,
	// and the sequence, in one snapshot.
	viewMarksQuery = "SELECT max(CASE WHEN id <> -1 THEN version END), max(CASE WHEN id = -1 THEN version END) " +
		"FROM issue_view_versions WHERE id IN (-1, 0, ?)"
)

// viewSeq reads the sequence.
func (s *Issues) viewSeq(ctx context.Context) (int64, error) {
	stmt, err := s.viewSeqStmt.get(ctx, s.core)
	if err != nil {
		return 0, err
	}
	var seq int64
	// Not cancellable: a lookup by primary key, which WAL readers never
	// wait for; a cancellable context costs two goroutines per statement
	// (database/sql's and the driver's interrupt watcher).
	if err := stmt.QueryRowContext(context.WithoutCancel(ctx)).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read issue view sequence: %w", translate(err))
	}
	noteRequestSeq(ctx, seq)
	return seq, nil
}

// viewMarks reads the latest mark of projectID or of everything, and the
// sequence.
func (s *Issues) viewMarks(ctx context.Context, projectID int64) (mark, seq int64, err error) {
	stmt, err := s.viewMarksStmt.get(ctx, s.core)
	if err != nil {
		return 0, 0, err
	}
	// Not cancellable: see viewSeq.
	if err := stmt.QueryRowContext(context.WithoutCancel(ctx), projectID).Scan(&mark, &seq); err != nil {
		return 0, 0, fmt.Errorf("read issue view marks: %w", translate(err))
	}
	return mark, seq, nil
}
