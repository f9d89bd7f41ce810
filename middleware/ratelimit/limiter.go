package ratelimit

import (
	"hash/maphash"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxKeys caps the buckets a Limiter keeps.
const DefaultMaxKeys = 100_000

const (
	maxShards       = 64
	minPerShard     = 256
	evictionSamples = 8
)

// Option configures a Limiter.
type Option func(*Limiter)

// WithMaxKeys caps the number of buckets kept (default DefaultMaxKeys).
// Values below 1 are ignored.
func WithMaxKeys(n int) Option {
	return func(l *Limiter) {
		if n >= 1 {
			l.maxKeys = n
		}
	}
}

// Limiter is a set of token buckets, one per key. It is safe for concurrent
// use. A Limiter built from a Limit with no requests or no window is
// disabled: it allows everything.
type Limiter struct {
	limit    Limit  // the first of limits
	limits   Limits // every window, each enforced
	enabled  bool
	capacity int64 // ns: the largest bucket of limits, see gcra
	// shared, when set, counts every key for all instances; this process's
	// buckets serve while it cannot answer (see Take).
	shared  Shared
	now     func() time.Time
	maxKeys int
	seed    maphash.Seed
	shards  []shard
	// nextSweep is the UnixNano time of the next sweep of full buckets.
	nextSweep atomic.Int64
}

type shard struct {
	mu sync.Mutex
	// tat is each key's theoretical arrival time (UnixNano): the bucket
	// is full when tat <= now and empty when tat >= now + capacity.
	tat map[string]int64
	max int
}

// NewLimiter returns a limiter for l; now is the clock (nil: time.Now).
func NewLimiter(l Limit, now func() time.Time, opts ...Option) *Limiter {
	return NewLimiters(Limits{l}, now, opts...)
}

// NewLimiters returns a limiter enforcing every window of ls; now is the
// clock (nil: time.Now). An empty or invalid ls gives a disabled limiter.
func NewLimiters(ls Limits, now func() time.Time, opts ...Option) *Limiter {
	if now == nil {
		now = time.Now
	}
	lim := &Limiter{now: now, maxKeys: DefaultMaxKeys, seed: maphash.MakeSeed()}
	for _, o := range opts {
		o(lim)
	}
	if !ls.valid() {
		return lim
	}
	lim.limits = append(Limits(nil), ls...)
	lim.limit = ls[0]
	lim.enabled = true
	for _, l := range ls {
		_, c := gcra(l)
		lim.capacity = max(lim.capacity, c)
	}

	n := min(maxShards, max(1, lim.maxKeys/minPerShard))
	lim.shards = make([]shard, n)
	for i := range lim.shards {
		lim.shards[i] = shard{tat: make(map[string]int64), max: lim.maxKeys / n}
	}
	lim.nextSweep.Store(now().UnixNano() + lim.sweepEvery())
	return lim
}

// Limit returns the configured limit, the first window of a list (zero
// for a nil limiter).
func (l *Limiter) Limit() Limit {
	if l == nil {
		return Limit{}
	}
	return l.limit
}

// Limits returns every configured window (nil for a nil limiter).
func (l *Limiter) Limits() Limits {
	if l == nil {
		return nil
	}
	return l.limits
}

// Enabled reports whether l limits anything.
func (l *Limiter) Enabled() bool { return l != nil && l.enabled }

// Allow takes one token from key's bucket, in this process only (see
// [Limiter.Take] for the shared count). ok reports whether the request
// may proceed; remaining is the number of further requests allowed right
// now; retryAfter (when !ok) is the wait until one is; reset is the wait
// until the bucket is full again. A disabled limiter returns ok and zeros.
func (l *Limiter) Allow(key string) (ok bool, remaining int, retryAfter, reset time.Duration) {
	if !l.Enabled() {
		return true, 0, 0, 0
	}
	d := l.allowLocalAll(key, l.limits)
	return d.OK, d.Remaining, d.RetryAfter, d.Reset
}

// windowKey names key's bucket for window i of ls: key itself when ls has
// one window (as before lists), key and the window's length otherwise.
func windowKey(key string, ls Limits, i int) string {
	if len(ls) == 1 {
		return key
	}
	return key + "|" + strconv.FormatInt(windowSeconds(ls[i].Per), 10) + "s"
}

// allowLocal is Allow for lim, kept in this process.
func (l *Limiter) allowLocal(key string, lim Limit) Decision {
	return l.allowLocalAll(key, Limits{lim})
}

// allowLocalAll takes one token from key's bucket of every window of ls,
// in this process, or none when any window is empty. The buckets of one
// key share a shard, so the check of every window is one atomic step.
func (l *Limiter) allowLocalAll(key string, ls Limits) Decision {
	now := l.now().UnixNano()
	l.maybeSweep(now)

	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	var dsBuf [maxWindows]Decision
	var nextsBuf [maxWindows]int64
	ds, nexts := dsBuf[:0], nextsBuf[:0]
	if len(ls) > maxWindows {
		ds, nexts = make([]Decision, 0, len(ls)), make([]int64, 0, len(ls))
	}
	ds, nexts = ds[:len(ls)], nexts[:len(ls)]
	refused := false
	for i, lim := range ls {
		interval, capacity := gcra(lim)
		tat := max(s.tat[windowKey(key, ls, i)], now)
		next := tat + interval
		nexts[i] = next
		if next-now > capacity {
			refused = true
			ds[i] = Decision{RetryAfter: time.Duration(next - capacity - now), Reset: time.Duration(tat - now), Limit: lim}
			continue
		}
		ds[i] = Decision{OK: true, Remaining: int((capacity - (next - now)) / interval), Reset: time.Duration(next - now), Limit: lim}
	}
	if refused {
		return pick(ds)
	}
	for i := range ls {
		k := windowKey(key, ls, i)
		if _, found := s.tat[k]; !found && len(s.tat) >= s.max {
			s.evict(now)
		}
		s.tat[k] = nexts[i]
	}
	return pick(ds)
}

// pick returns the decision of the window closest to running out: of
// refusing windows the one that refuses longest (its RetryAfter is when
// every window has room again), else the one with fewest requests
// remaining (on a tie, the one that takes longest to refill).
func pick(ds []Decision) Decision {
	best := -1
	for i, d := range ds {
		if d.OK {
			continue
		}
		if best < 0 || d.RetryAfter > ds[best].RetryAfter {
			best = i
		}
	}
	if best >= 0 {
		return ds[best]
	}
	for i, d := range ds {
		if best < 0 || d.Remaining < ds[best].Remaining ||
			(d.Remaining == ds[best].Remaining && d.Reset > ds[best].Reset) {
			best = i
		}
	}
	return ds[best]
}

// gcra returns lim's emission interval (ns per token) and bucket capacity
// (ns): a bucket is empty when its theoretical arrival time is capacity
// ahead of now.
func gcra(lim Limit) (interval, capacity int64) {
	interval = max(1, int64(lim.Per)/int64(lim.Requests))
	return interval, interval * int64(lim.Requests)
}

// Len returns the number of buckets held.
func (l *Limiter) Len() int {
	if l == nil {
		return 0
	}
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.tat)
		s.mu.Unlock()
	}
	return n
}

// sweepEvery is how often full buckets are dropped: once per refill of a
// whole bucket, but not more than once a second.
func (l *Limiter) sweepEvery() int64 {
	return max(l.capacity, int64(time.Second))
}

// maybeSweep drops full buckets from every shard when a sweep is due. One
// caller wins the sweep; the others go on.
func (l *Limiter) maybeSweep(now int64) {
	due := l.nextSweep.Load()
	if now < due || !l.nextSweep.CompareAndSwap(due, now+l.sweepEvery()) {
		return
	}
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		for k, tat := range s.tat {
			if tat <= now {
				delete(s.tat, k)
			}
		}
		s.mu.Unlock()
	}
}

// evict makes room for one bucket: full buckets go first; otherwise the
// fullest of a few sampled buckets (the one whose loss forgets least).
// Called with s.mu held.
func (s *shard) evict(now int64) {
	var (
		victim string
		best   int64
		seen   int
	)
	for k, tat := range s.tat {
		if tat <= now {
			delete(s.tat, k)
			return
		}
		if seen == 0 || tat < best {
			victim, best = k, tat
		}
		seen++
		if seen == evictionSamples {
			break
		}
	}
	delete(s.tat, victim)
}

// Blocked reports, without spending anything, whether a request for key
// would be refused now (in this process only; see [Limiter.Peek]), and
// when it would pass again. It serves budgets that are charged after the
// fact (failed authentications): check Blocked before the work, call
// Allow when the work failed.
func (l *Limiter) Blocked(key string) (blocked bool, retryAfter time.Duration) {
	if !l.Enabled() {
		return false, 0
	}
	d := l.peekLocal(key, l.limits)
	return !d.OK, d.RetryAfter
}

// peekLocal looks at key's buckets under every window of ls in this
// process, spending nothing (see [Limiter.Peek]).
func (l *Limiter) peekLocal(key string, ls Limits) Decision {
	now := l.now().UnixNano()
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	var dsBuf [maxWindows]Decision
	ds := dsBuf[:0]
	if len(ls) > maxWindows {
		ds = make([]Decision, 0, len(ls))
	}
	ds = ds[:len(ls)]
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, lim := range ls {
		interval, capacity := gcra(lim)
		tat, found := s.tat[windowKey(key, ls, i)]
		if !found {
			ds[i] = Decision{OK: true, Remaining: lim.Requests, Limit: lim}
			continue
		}
		tat = max(tat, now)
		if next := tat + interval; next-now > capacity {
			ds[i] = Decision{RetryAfter: time.Duration(next - capacity - now), Reset: time.Duration(tat - now), Limit: lim}
			continue
		}
		ds[i] = Decision{OK: true, Remaining: int((capacity - (tat - now)) / interval), Reset: time.Duration(tat - now), Limit: lim}
	}
	return pick(ds)
}
