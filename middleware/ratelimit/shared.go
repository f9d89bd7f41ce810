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
}

// Shared keeps the buckets outside the process, so that every instance of
// a deployment counts against the same budget (Redis, see [Redis]). Each call is one atomic step of the same GCRA as the in-process
// Limiter, on the shared store's clock. An error means the shared store
// did not answer (in time): the caller counts in process instead.
type Shared interface {
	// Allow takes one token from key's bucket under lim.
	Allow(ctx context.Context, key string, lim Limit) (Decision, error)
	// Blocked reports, spending nothing, whether key's bucket under lim
	// is empty, and when it will hold a token again.
	Blocked(ctx context.Context, key string, lim Limit) (bool, time.Duration, error)
}

// WithShared counts every key in s (see [Shared]); the limiter's own
// buckets count while s fails.
func WithShared(s Shared) Option {
	return func(l *Limiter) { l.shared = s }
}

// Take takes one token from key's bucket under lim (the limiter's own
// limit when lim is zero): in the shared store when the limiter has one
// and it answers, in this process otherwise. A disabled limiter allows
// everything.
func (l *Limiter) Take(ctx context.Context, key string, lim Limit) Decision {
	if !l.Enabled() {
		return Decision{OK: true}
	}
	if !lim.valid() {
		lim = l.limit
	}
	if l.shared != nil {
		if d, err := l.shared.Allow(ctx, key, lim); err == nil {
			return d
		}
	}
	return l.allowLocal(key, lim)
}

// Peek is Blocked counted where Take counts: whether key's bucket is empty
// now, and when it will hold a token again, spending nothing.
func (l *Limiter) Peek(ctx context.Context, key string) (bool, time.Duration) {
	if !l.Enabled() {
		return false, 0
	}
	if l.shared != nil {
		if blocked, retry, err := l.shared.Blocked(ctx, key, l.limit); err == nil {
			return blocked, retry
		}
	}
	return l.blockedLocal(key, l.limit)
}

// Redis counts every key in Redis through c (see [Shared]).
func Redis(c *redislimit.Client) Option { return WithShared(redisShared{c}) }

type redisShared struct{ c *redislimit.Client }

func (r redisShared) Allow(ctx context.Context, key string, lim Limit) (Decision, error) {
	d, err := r.c.Allow(ctx, key, lim.Requests, lim.Per)
	return Decision(d), err
}

func (r redisShared) Blocked(ctx context.Context, key string, lim Limit) (bool, time.Duration, error) {
	return r.c.Blocked(ctx, key, lim.Requests, lim.Per)
}
