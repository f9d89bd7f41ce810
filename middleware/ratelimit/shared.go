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
	// Peek looks at key's bucket under lim, spending nothing: OK when
	// it holds a token, Remaining the tokens it holds.
	Peek(ctx context.Context, key string, lim Limit) (Decision, error)
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

// Peek is Blocked counted where Take counts, spending nothing: OK when
// key's bucket holds a token, Remaining the tokens it holds, RetryAfter
// (when it is empty) the wait until it holds one, Reset the wait until it
// is full. A disabled limiter answers OK.
func (l *Limiter) Peek(ctx context.Context, key string) Decision {
	if !l.Enabled() {
		return Decision{OK: true}
	}
	if l.shared != nil {
		if d, err := l.shared.Peek(ctx, key, l.limit); err == nil {
			return d
		}
	}
	return l.peekLocal(key, l.limit)
}

// Redis counts every key in Redis through c (see [Shared]).
func Redis(c *redislimit.Client) Option { return WithShared(redisShared{c}) }

type redisShared struct{ c *redislimit.Client }

func (r redisShared) Allow(ctx context.Context, key string, lim Limit) (Decision, error) {
	d, err := r.c.Allow(ctx, key, lim.Requests, lim.Per)
	return Decision(d), err
}

func (r redisShared) Peek(ctx context.Context, key string, lim Limit) (Decision, error) {
	d, err := r.c.Peek(ctx, key, lim.Requests, lim.Per)
	return Decision(d), err
}
