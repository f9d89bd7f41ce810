package jwtauth

import (
	"context"
	"sync"
	"time"
)

const (
	// reloadInterval is the least time between two scheduled key set
	// loads (first use, hourly refresh, Refresh), failed or not, and
	// between two loads caused by unknown kids: unknown kids cannot make
	// glmcp hammer the issuer. The two windows are separate, so a warm-up
	// or hourly load never holds back the one reload a rotated-in key
	// needs.
	reloadInterval = 30 * time.Second
	// maxKeyAge is how long loaded keys are used before a reload is tried,
	// so keys removed from the JWKS stop verifying.
	maxKeyAge = time.Hour
)

// keyStore caches a key set and reloads it on demand. A store without a
// loader holds static keys.
type keyStore struct {
	load func(ctx context.Context) (*keySet, error)
	now  func() time.Time

	mu          sync.Mutex
	set         *keySet
	loadedAt    time.Time
	attempted   bool
	lastAttempt time.Time
	// missed and lastMiss track reloads caused by an unknown kid.
	missed   bool
	lastMiss time.Time
	lastErr  error
	inflight *loadCall
}

// loadCall is one load shared by every caller that asked for it.
type loadCall struct {
	done chan struct{}
	err  error
}

func staticStore(set *keySet) *keyStore {
	return &keyStore{set: set, now: time.Now}
}

// current returns the cached keys, loading them first when there are none
// or they are older than maxKeyAge (subject to the reload interval). A
// failed reload keeps the old keys; its error is returned with them.
// loaded reports whether this call tried a load (so the caller need not
// try another for an unknown kid).
func (s *keyStore) current(ctx context.Context) (set *keySet, loaded bool, err error) {
	if s.load == nil {
		return s.set, false, nil
	}
	s.mu.Lock()
	fresh := s.set != nil && s.now().Sub(s.loadedAt) < maxKeyAge
	set = s.set
	s.mu.Unlock()
	if fresh {
		return set, false, nil
	}
	loaded, err = s.reloadFor(ctx, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set, loaded, err
}

// reload loads the key set again, unless a load was attempted less than
// reloadInterval ago (then it returns the error of that attempt, or
// errTooSoon). Concurrent callers share one load.
func (s *keyStore) reload(ctx context.Context) error {
	_, err := s.reloadFor(ctx, false)
	return err
}

// reloadMiss loads the key set again because a token named a kid it does
// not hold, unless another unknown kid caused a load less than
// reloadInterval ago. Scheduled loads do not count: right after a warm-up
// or an hourly refresh, a key the issuer has just rotated in is still
// fetched at once.
func (s *keyStore) reloadMiss(ctx context.Context) error {
	_, err := s.reloadFor(ctx, true)
	return err
}

// reloadFor is reload (miss false) or reloadMiss (miss true). tried
// reports whether a load ran (this caller's or a shared one).
func (s *keyStore) reloadFor(ctx context.Context, miss bool) (tried bool, err error) {
	if s.load == nil {
		return false, errKeyNotInSet
	}
	s.mu.Lock()
	if c := s.inflight; c != nil {
		s.mu.Unlock()
		select {
		case <-c.done:
			return true, c.err
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	now := s.now()
	tooSoon := s.attempted && now.Sub(s.lastAttempt) < reloadInterval
	if miss {
		tooSoon = s.missed && now.Sub(s.lastMiss) < reloadInterval
	}
	if tooSoon {
		err := s.lastErr
		s.mu.Unlock()
		if err == nil {
			err = errTooSoon
		}
		return false, err
	}
	s.attempted, s.lastAttempt = true, now
	if miss {
		s.missed, s.lastMiss = true, now
	}
	c := &loadCall{done: make(chan struct{})}
	s.inflight = c
	s.mu.Unlock()

	// The load belongs to every waiter, not to this caller: it must not
	// be cut short when this caller's request is cancelled.
	set, err := s.load(context.WithoutCancel(ctx))

	s.mu.Lock()
	if err == nil {
		s.set, s.loadedAt = set, s.now()
	}
	s.lastErr = err
	s.inflight = nil
	c.err = err
	s.mu.Unlock()
	close(c.done)
	return true, err
}
