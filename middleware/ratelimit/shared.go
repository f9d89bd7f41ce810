package ratelimit

import (
	"context"
	"time"

	"gitlab.com/glmcp/glmcp/services/redislimit"
)

// Decision is one rate-limit check's outcome.
type Decision struct {
	// OK reports whether the request may proceed.
	OK bool
	// Remaining is the number of further requests allowed right now.
	Remaining int
	// RetryAfter (when !OK) is the wait until a request is allowed again.
	RetryAfter time.Duration
	// Reset is the wait until the bucket is full again.
	Reset time.Duration
	// Limit is the window the decision is about: of a list, the one
	// closest to running out (see [Limiter.TakeAll]).
	Limit Limit
}

// Shared keeps the buckets outside the process, so that every instance of
// a deployment counts against the same budget (Redis, see [Redis]). Each call is one atomic step of the same GCRA as the in-process
// Limiter, on the shared store's clock. An error means the shared store
// did not answer (in time): the caller counts in process instead.
type Shared interface {
	// Allow takes one token from key's bucket of every window of ls, or
	// none when any is empty, and returns each window's decision in turn.
	Allow(ctx context.Context, key string, ls Limits) ([]Decision, error)
	// Peek looks at key's buckets under ls, spending nothing: OK when
	// a bucket holds a token, Remaining the tokens it holds.
	Peek(ctx context.Context, key string, ls Limits) ([]Decision, error)
}

// WithShared counts every key in s (see [Shared]); the limiter's own
// buckets count while s fails.
func WithShared(s Shared) Option {
	return func(l *Limiter) { l.shared = s }
}

// Take takes one token from key's bucket under lim (the limiter's own
// limits when lim is zero): see [Limiter.TakeAll].
func (l *Limiter) Take(ctx context.Context, key string, lim Limit) Decision {
	if lim.valid() {
		return l.TakeAll(ctx, key, Limits{lim})
	}
	return l.TakeAll(ctx, key, nil)
}

// TakeAll takes one token from key's bucket of every window of ls (the
// limiter's own windows when ls is empty), or none when any window is
// empty: in the shared store when the limiter has one and it answers, in
// this process otherwise. The decision is the window's closest to running
// out (the refusing window that refuses longest, else the one with fewest
// requests remaining), and names it. A disabled limiter allows everything.
func (l *Limiter) TakeAll(ctx context.Context, key string, ls Limits) Decision {
	if !l.Enabled() {
		return Decision{OK: true}
	}
	if !ls.valid() {
		ls = l.limits
	}
	if l.shared != nil {
		if ds, err := l.shared.Allow(ctx, key, ls); err == nil && len(ds) == len(ls) {
			return pickNamed(ds, ls)
		}
	}
	return l.allowLocalAll(key, ls)
}

// pickNamed names each decision's window, then picks.
func pickNamed(ds []Decision, ls Limits) Decision {
	for i := range ds {
		ds[i].Limit = ls[i]
	}
	return pick(ds)
}

// Peek is Blocked counted where Take counts, spending nothing: OK when
// key's buckets hold a token, Remaining the tokens they hold, RetryAfter
// (when one is empty) the wait until it holds one, Reset the wait until it
// is full. A disabled limiter answers OK.
func (l *Limiter) Peek(ctx context.Context, key string) Decision {
	if !l.Enabled() {
		return Decision{OK: true}
	}
	if l.shared != nil {
		if ds, err := l.shared.Peek(ctx, key, l.limits); err == nil && len(ds) == len(l.limits) {
			return pickNamed(ds, l.limits)
		}
	}
	return l.peekLocal(key, l.limits)
}

// Redis counts every key in Redis through c (see [Shared]).
func Redis(c *redislimit.Client) Option { return WithShared(redisShared{c}) }

type redisShared struct{ c *redislimit.Client }

func (r redisShared) Allow(ctx context.Context, key string, ls Limits) ([]Decision, error) {
	ds, err := r.c.AllowWindows(ctx, key, windows(ls))
	return decisions(ds), err
}

func (r redisShared) Peek(ctx context.Context, key string, ls Limits) ([]Decision, error) {
	ds, err := r.c.PeekWindows(ctx, key, windows(ls))
	return decisions(ds), err
}

func windows(ls Limits) []redislimit.Window {
	ws := make([]redislimit.Window, len(ls))
	for i, l := range ls {
		ws[i] = redislimit.Window{Requests: l.Requests, Per: l.Per}
	}
	return ws
}

func decisions(rs []redislimit.Decision) []Decision {
	ds := make([]Decision, len(rs))
	for i, d := range rs {
		ds[i] = Decision{OK: d.OK, Remaining: d.Remaining, RetryAfter: d.RetryAfter, Reset: d.Reset}
	}
	return ds
}
