// Package redislimit keeps glmcp's limits in Redis, so that every instance
// of a deployment counts against the same budgets: the request rate limits
// and the failed-authentication ban ([Client.Allow], [Client.Blocked]) and the per-user
// listen stream cap (leased slots, see [Client.Acquire]).
//
// Every check is one atomic Lua script (one round trip) on Redis's own
// clock (TIME), so instances with skewed clocks agree. Keys are prefixed
// per deployment: instances sharing a prefix share their limits, two
// deployments on one Redis do not.
//
// Redis is never allowed to fail a request. Each check has a deadline
// (Config.Timeout); a check that errs or misses it marks Redis down, and
// the caller counts in process instead (the embedded limiters). While down,
// one check a second probes Redis and the others do not wait for it; the
// first that succeeds brings every limit back to Redis. Each transition is
// logged once.
//
// Redis Cluster is not supported (a renewal touches the slots of many
// users in one script); a single primary, with replicas or Sentinel, is.
package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Defaults for the Config fields left zero.
const (
	DefaultTimeout = 100 * time.Millisecond
	DefaultLease   = 30 * time.Second
	// probeEvery is how often a check tries Redis while it is down.
	probeEvery = time.Second
	// renewBatch caps the slots one renewal script touches.
	renewBatch = 500
)

// ErrDown is returned, without asking Redis, while Redis is marked down
// and no probe is due.
var ErrDown = errors.New("redis is down: limits are counted in process")

// Config configures a Client.
type Config struct {
	// URL is redis://[user:password@]host:port[/db] or rediss:// (TLS).
	URL string
	// PasswordFile, when set, holds the password (one line; a trailing
	// newline is ignored); it replaces any password in URL.
	PasswordFile string
	// Prefix starts every key ("glmcp:<deployment>:").
	Prefix string
	// Timeout bounds each check, connecting included (default 100ms).
	Timeout time.Duration
	// Lease is how long a listen stream's slot lives without renewal
	// (default 30s); the owner renews every Lease/3.
	Lease  time.Duration
	Logger *slog.Logger
}

// Client counts limits in Redis. It is safe for concurrent use.
type Client struct {
	rdb      *redis.Client
	prefix   string
	timeout  time.Duration
	lease    time.Duration
	logger   *slog.Logger
	instance string // this process's part of its slots' names

	up        atomic.Bool
	nextProbe atomic.Int64 // UnixNano: the next check that may try Redis while down

	seq    atomic.Uint64
	closed atomic.Bool
	// mu guards held and serialises a renewal with releases, so that a
	// slot released meanwhile is never renewed back.
	mu   sync.Mutex
	held map[string]string // slot member → its user's key
	// releasing counts slot releases under way, which Close waits for.
	releasing int
}

// New returns a client for cfg. It does not connect: the first check does.
func New(cfg Config) (*Client, error) {
	if !strings.HasPrefix(cfg.URL, "redis://") && !strings.HasPrefix(cfg.URL, "rediss://") {
		return nil, fmt.Errorf("GLMCP_REDIS_URL: must start with redis:// or rediss://")
	}
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		// ParseURL's errors may quote the URL, password included.
		return nil, fmt.Errorf("GLMCP_REDIS_URL: not a valid redis:// or rediss:// URL")
	}
	if cfg.PasswordFile != "" {
		b, err := os.ReadFile(cfg.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("GLMCP_REDIS_PASSWORD_FILE: %w", err)
		}
		opts.Password = strings.TrimRight(string(b), "\r\n")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// A check waits for Redis at most Timeout, whatever the failure:
	// no retries, one dial attempt, the context's deadline everywhere.
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	opts.DialTimeout = cfg.Timeout
	opts.ReadTimeout = cfg.Timeout
	opts.WriteTimeout = cfg.Timeout
	opts.PoolTimeout = cfg.Timeout
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

	var id [6]byte
	_, _ = rand.Read(id[:])
	c := &Client{
		rdb: redis.NewClient(opts), prefix: cfg.Prefix, timeout: cfg.Timeout, lease: cfg.Lease,
		logger: cfg.Logger, instance: hex.EncodeToString(id[:]), held: make(map[string]string),
	}
	c.up.Store(true)
	return c, nil
}

// Close frees the slots still held (streams that did not end: a shutdown
// that gave up waiting for them) after the releases under way, then closes
// the connections. Later checks fail at once, without marking Redis down.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	// A release under way takes at most the timeout.
	for deadline := time.Now().Add(2 * c.timeout); ; time.Sleep(5 * time.Millisecond) {
		c.mu.Lock()
		n := c.releasing
		c.mu.Unlock()
		if n == 0 || time.Now().After(deadline) {
			break
		}
	}
	c.mu.Lock()
	held := c.held
	c.held = make(map[string]string)
	c.mu.Unlock()
	if len(held) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		pipe := c.rdb.Pipeline()
		for member, key := range held {
			pipe.ZRem(ctx, key, member)
		}
		_, _ = pipe.Exec(ctx) // what is not removed lapses with its lease
		cancel()
	}
	return c.rdb.Close()
}

// errClosed is returned by checks after Close.
var errClosed = errors.New("redis limits: client closed")

// Up reports whether the last check reached Redis: limits are counted in
// Redis (true) or in process (false).
func (c *Client) Up() bool { return c.up.Load() }

// Timeout is the bound of one check.
func (c *Client) Timeout() time.Duration { return c.timeout }

// do runs fn against Redis within the check deadline, unless Redis is down
// and no probe is due (ErrDown, at once). A failure marks Redis down, a
// success up; each change is logged once.
func (c *Client) do(ctx context.Context, fn func(ctx context.Context) error) error {
	if c.closed.Load() {
		return errClosed
	}
	if !c.up.Load() {
		now := time.Now().UnixNano()
		due := c.nextProbe.Load()
		if now < due || !c.nextProbe.CompareAndSwap(due, now+int64(probeEvery)) {
			return ErrDown
		}
	}
	// The request's cancellation does not matter to a check this short,
	// and must not read as Redis failing.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	defer cancel()
	if err := fn(ctx); err != nil {
		c.markDown(err)
		return err
	}
	if c.up.CompareAndSwap(false, true) {
		c.logger.Info("redis reachable again: limits are counted in redis")
	}
	return nil
}

func (c *Client) markDown(err error) {
	if c.up.CompareAndSwap(true, false) {
		c.nextProbe.Store(time.Now().Add(probeEvery).UnixNano())
		c.logger.Warn("redis unreachable: limits are counted in process until it answers again",
			"error", err.Error(), "timeout", c.timeout.String())
	}
}

// gcraScript is one step of the generic cell rate algorithm, the in-process
// limiter's, in microseconds on Redis's clock, over one bucket per window.
// KEYS[i] holds window i's theoretical arrival time; ARGV[1] is 1 to spend
// a token or 0 to look only, then each window's emission interval and
// capacity. A token is spent in every window or, when any window is empty,
// in none. It returns {allowed, remaining, retry after, reset} for each
// window in turn, the durations in microseconds; a look counts as
// remaining the tokens there are, a spend those left after it.
var gcraScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local out = {}
local nxts = {}
local refused = false
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i])
  local capacity = tonumber(ARGV[2 * i + 1])
  local tat = tonumber(redis.call('GET', key))
  if tat == nil or tat < now then tat = now end
  local nxt = tat + interval
  nxts[i] = nxt
  if nxt - now > capacity then
    refused = true
    table.insert(out, 0); table.insert(out, 0); table.insert(out, nxt - capacity - now); table.insert(out, tat - now)
  elseif ARGV[1] == '0' then
    table.insert(out, 1); table.insert(out, math.floor((capacity - (tat - now)) / interval)); table.insert(out, 0); table.insert(out, tat - now)
  else
    table.insert(out, 1); table.insert(out, math.floor((capacity - (nxt - now)) / interval)); table.insert(out, 0); table.insert(out, nxt - now)
  end
end
if ARGV[1] == '1' and not refused then
  for i, key in ipairs(KEYS) do
    redis.call('SET', key, string.format('%.0f', nxts[i]), 'PX', math.floor((nxts[i] - now) / 1000) + 1)
  end
end
return out
`)

// Decision is one rate-limit check's outcome (the same as the in-process
// limiter's).
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

// Window is one rate-limit window: Requests per Per.
type Window struct {
	Requests int
	Per      time.Duration
}

// windowKey names key's bucket for window i of ws in Redis: the key alone
// when there is one window, the key and the window's length otherwise (the
// in-process limiter names its buckets alike).
func (c *Client) windowKey(key string, ws []Window, i int) string {
	if len(ws) == 1 {
		return c.prefix + "rl:" + key
	}
	return c.prefix + "rl:" + key + "|" + strconv.FormatInt(max(1, int64((ws[i].Per+time.Second-1)/time.Second)), 10) + "s"
}

// gcra runs gcraScript for key under every window of ws.
func (c *Client) gcra(ctx context.Context, key string, ws []Window, spend bool) ([]Decision, error) {
	if len(ws) == 0 {
		return nil, fmt.Errorf("rate limit: no window")
	}
	keys := make([]string, len(ws))
	args := make([]any, 1, 1+2*len(ws))
	args[0] = "0"
	if spend {
		args[0] = "1"
	}
	for i, w := range ws {
		if w.Requests < 1 || w.Per <= 0 {
			return nil, fmt.Errorf("rate limit %d per %s: not a limit", w.Requests, w.Per)
		}
		interval := max(1, w.Per.Microseconds()/int64(w.Requests))
		keys[i] = c.windowKey(key, ws, i)
		args = append(args, interval, interval*int64(w.Requests))
	}
	var res []int64
	err := c.do(ctx, func(ctx context.Context) (err error) {
		res, err = gcraScript.Run(ctx, c.rdb, keys, args...).Int64Slice()
		if err == nil && len(res) != 4*len(ws) {
			err = fmt.Errorf("rate limit script: %d values, want %d", len(res), 4*len(ws))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ds := make([]Decision, len(ws))
	for i := range ds {
		ds[i] = decision(res[4*i : 4*i+4])
	}
	return ds, nil
}

// Allow takes one token from key's bucket of requests per per, a bucket
// every instance on the prefix shares.
func (c *Client) Allow(ctx context.Context, key string, requests int, per time.Duration) (Decision, error) {
	ds, err := c.gcra(ctx, key, []Window{{requests, per}}, true)
	if err != nil {
		return Decision{}, err
	}
	return ds[0], nil
}

// AllowWindows takes one token from key's bucket of every window of ws,
// or none when any of them is empty, in one atomic step; it returns each
// window's decision, in the order of ws.
func (c *Client) AllowWindows(ctx context.Context, key string, ws []Window) ([]Decision, error) {
	return c.gcra(ctx, key, ws, true)
}

// PeekWindows looks at key's bucket of every window of ws, spending nothing.
func (c *Client) PeekWindows(ctx context.Context, key string, ws []Window) ([]Decision, error) {
	return c.gcra(ctx, key, ws, false)
}

// Peek looks at key's bucket of requests per per, spending nothing: OK
// when it holds a token, Remaining the tokens it holds, RetryAfter (when
// empty) the wait until it holds one, Reset the wait until it is full.
func (c *Client) Peek(ctx context.Context, key string, requests int, per time.Duration) (Decision, error) {
	ds, err := c.gcra(ctx, key, []Window{{requests, per}}, false)
	if err != nil {
		return Decision{}, err
	}
	return ds[0], nil
}

// Blocked reports whether key's bucket of requests per per is empty, and
// when it will hold a token again, spending nothing.
func (c *Client) Blocked(ctx context.Context, key string, requests int, per time.Duration) (bool, time.Duration, error) {
	d, err := c.Peek(ctx, key, requests, per)
	return !d.OK && err == nil, d.RetryAfter, err
}

// decision reads gcraScript's answer for one window.
func decision(res []int64) Decision {
	return Decision{OK: res[0] == 1, Remaining: int(res[1]),
		RetryAfter: time.Duration(res[2]) * time.Microsecond, Reset: time.Duration(res[3]) * time.Microsecond}
}

// acquireScript takes a listen stream slot: KEYS[1] is the user's sorted
// set of slots, each scored by the end of its lease (milliseconds, Redis's
// clock); ARGV: the slot's name, the cap, the lease. Lapsed slots (their
// instance stopped renewing: it crashed) are dropped first. Returns 1 when
// the slot is taken, 0 when the user is at the cap.
var acquireScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// renewScript extends the leases of slots: KEYS are the users' sets,
// ARGV[1] the lease, ARGV[i+1] the slot in KEYS[i]. A slot Redis lost (a
// restart without persistence, or one taken while Redis was down) is added
// back: the stream it stands for is open.
var renewScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', key, lease)
end
return #KEYS
`)

// Acquire takes one of userID's max listen stream slots for as long as the
// stream lasts: release frees it. ok is false when the user holds max
// slots across every instance. While Redis does not answer, the slot is
// granted (the instance's own per-user cap still holds) and registered in
// Redis by the next renewal once Redis is back.
func (c *Client) Acquire(userID int64, max int) (release func(), ok bool) {
	key := c.prefix + "streams:" + strconv.FormatInt(userID, 10)
	member := c.instance + ":" + strconv.FormatUint(c.seq.Add(1), 10)
	var taken int64
	err := c.do(context.Background(), func(ctx context.Context) (err error) {
		taken, err = acquireScript.Run(ctx, c.rdb, []string{key}, member, max, c.lease.Milliseconds()).Int64()
		return err
	})
	if err == nil && taken == 0 {
		return nil, false
	}
	c.mu.Lock()
	c.held[member] = key
	c.mu.Unlock()
	return func() { c.release(key, member) }, true
}

func (c *Client) release(key, member string) {
	c.mu.Lock()
	_, held := c.held[member]
	delete(c.held, member)
	if held {
		c.releasing++
	}
	c.mu.Unlock()
	if !held {
		return
	}
	defer func() {
		c.mu.Lock()
		c.releasing--
		c.mu.Unlock()
	}()
	// A slot that cannot be removed now lapses with its lease.
	_ = c.do(context.Background(), func(ctx context.Context) error {
		return c.rdb.ZRem(ctx, key, member).Err()
	})
}

// Held returns the number of slots this instance holds.
func (c *Client) Held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.held)
}

// Run renews this instance's slots every Lease/3 until ctx ends.
func (c *Client) Run(ctx context.Context) {
	t := time.NewTicker(c.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.renew(ctx)
		}
	}
}

// renew extends every held slot's lease, renewBatch slots per script.
func (c *Client) renew(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, min(len(c.held), renewBatch))
	args := make([]any, 0, min(len(c.held), renewBatch)+1)
	flush := func() bool {
		if len(keys) == 0 {
			return true
		}
		err := c.do(ctx, func(ctx context.Context) error {
			return renewScript.Run(ctx, c.rdb, keys, append([]any{c.lease.Milliseconds()}, args...)...).Err()
		})
		keys, args = keys[:0], args[:0]
		return err == nil
	}
	for member, key := range c.held {
		keys, args = append(keys, key), append(args, member)
		if len(keys) == renewBatch && !flush() {
			return
		}
	}
	flush()
}
