package jwtauth

import (
	"context"
	"sync"
	"time"
)

const (
	// reloadInterval is the least time between two key set loads, failed
	// or not: unknown kids cannot make glmcp hammer the issuer.
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
	lastErr     error
	inflight    *loadCall
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
func (s *keyStore) current(ctx context.Context) (*keySet, error) {
	if s.load == nil {
		return s.set, nil
	}
	s.mu.Lock()
	fresh := s.set != nil && s.now().Sub(s.loadedAt) < maxKeyAge
	set := s.set
	s.mu.Unlock()
	if fresh {
		return set, nil
	}
	err := s.reload(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set, err
}

// reload loads the key set again, unless a load was attempted less than
// reloadInterval ago (then it returns the error of that attempt, or
// errTooSoon). Concurrent callers share one load.
func (s *keyStore) reload(ctx context.Context) error {
	if s.load == nil {
		return errKeyNotInSet
	}
	s.mu.Lock()
	if c := s.inflight; c != nil {
		s.mu.Unlock()
		select {
		case <-c.done:
			return c.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	now := s.now()
	if s.attempted && now.Sub(s.lastAttempt) < reloadInterval {
		err := s.lastErr
		s.mu.Unlock()
		if err == nil {
			err = errTooSoon
		}
		return err
	}
	s.attempted, s.lastAttempt = true, now
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
	return err
}
