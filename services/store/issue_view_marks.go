package store

import (
	"context"
	"sync/atomic"

	"gitlab.com/glmcp/glmcp/models"
)

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
