package store

import (
	"context"
	"fmt"
	"sync/atomic"

	"gitlab.com/glmcp/glmcp/models"
)

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

// renew records that the view v under k is still true at sequence seq.
func (c *IssueViewCache) renew(k issueViewKey, v *models.IssueView, seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[k]; e.v == v && seq > e.seq {
		e.seq = seq
		c.entries[k] = e
	}
}

// requestMarks carries, through one request, the issue view sequence a
// statement of the request read (see WithRequestMarks).
type requestMarks struct {
	seq atomic.Int64
	set atomic.Bool
}

type requestMarksKey struct{}

// WithRequestMarks returns ctx carrying a place for the embedded store's
// issue view sequence, for a request that starts now: the identity
// version's statement (IdentityVersion) reads the sequence too and leaves
// it there, so that FindIssueView of a cached view nothing changed since
// needs no statement of its own. Any sequence read after the request
// started is as good as one read at the view's use: a change committed
// before the request is in it. PostgreSQL ignores it.
func WithRequestMarks(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestMarksKey{}, &requestMarks{})
}

func noteRequestSeq(ctx context.Context, seq int64) {
	if m, ok := ctx.Value(requestMarksKey{}).(*requestMarks); ok {
		m.seq.Store(seq)
		m.set.Store(true)
	}
}

func requestSeq(ctx context.Context) (int64, bool) {
	m, ok := ctx.Value(requestMarksKey{}).(*requestMarks)
	if !ok || !m.set.Load() {
		return 0, false
	}
	return m.seq.Load(), true
}
