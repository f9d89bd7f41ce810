package redislimit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/redislimit"
	"gitlab.com/glmcp/glmcp/services/redislimit/redistest"
)

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), s)
}

func newClient(t *testing.T, srv *redistest.Server, prefix string, lease time.Duration, log *syncBuffer) *redislimit.Client {
	t.Helper()
	cfg := redislimit.Config{URL: srv.URL(), Prefix: prefix, Lease: lease}
	if log != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(log, nil))
	}
	c, err := redislimit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestNew_badConfig(t *testing.T) {
	for _, tt := range []struct{ cfg redislimit.Config }{
		{redislimit.Config{URL: "http://127.0.0.1:6379"}},
		{redislimit.Config{URL: "127.0.0.1:6379"}},
		{redislimit.Config{URL: "redis://:s3cret@127.0.0.1:notaport/0"}},
		{redislimit.Config{URL: "redis://127.0.0.1:6379/0", PasswordFile: filepath.Join(t.TempDir(), "missing")}},
	} {
		_, err := redislimit.New(tt.cfg)
		if err == nil {
			t.Errorf("New(%+v) = nil error", tt.cfg)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error %q reveals the password", err)
		}
	}
}

func TestNew_goodConfig(t *testing.T) {
	for _, url := range []string{"redis://127.0.0.1:6379", "redis://:pw@127.0.0.1:6379/2", "rediss://user:pw@redis.example.com:6380/0"} {
		c, err := redislimit.New(redislimit.Config{URL: url})
		if err != nil {
			t.Errorf("New(%q) = %v", url, err)
			continue
		}
		if !c.Up() || c.Timeout() != redislimit.DefaultTimeout {
			t.Errorf("New(%q): up %v, timeout %s; want up with the default timeout", url, c.Up(), c.Timeout())
		}
		_ = c.Close()
	}
}

// A password from a file replaces the URL's: a server requiring one
// refuses the wrong one (the check errs) and takes the right one.
func TestNew_passwordFile(t *testing.T) {
	srv := redistest.Start(t)
	srv.Do("CONFIG", "SET", "requirepass", "right-password")
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("right-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const n, per = 1, time.Minute
	good, err := redislimit.New(redislimit.Config{URL: "redis://:wrong@" + srv.Addr, PasswordFile: file, Prefix: "pw:"})
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	if _, err := good.Allow(context.Background(), "k", n, per); err != nil {
		t.Fatalf("with the file's password: %v", err)
	}
	bad, err := redislimit.New(redislimit.Config{URL: "redis://:wrong@" + srv.Addr, Prefix: "pw:"})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Allow(context.Background(), "k", n, per); err == nil {
		t.Fatal("the wrong password was accepted")
	}
}

// Two instances on one prefix spend one budget, exactly; another prefix
// (another deployment) has its own.
func TestAllow_sharedAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newClient(t, srv, "dep1:", 0, nil), newClient(t, srv, "dep1:", 0, nil)
	other := newClient(t, srv, "dep2:", 0, nil)
	ctx := context.Background()
	const n, per = 5, time.Minute
	var allowed []int
	for i := range 12 {
		c := a
		if i%2 == 1 {
			c = b
		}
		d, err := c.Allow(ctx, "user:1:/api/v4/mcp", n, per)
		if err != nil {
			t.Fatal(err)
		}
		if d.OK {
			allowed = append(allowed, d.Remaining)
			continue
		}
		if d.Remaining != 0 || d.RetryAfter <= 11*time.Second || d.RetryAfter > 12*time.Second || d.Reset <= 59*time.Second || d.Reset > time.Minute {
			t.Fatalf("request %d refused with %+v; want 0 remaining, retry within 12s, reset within 60s", i+1, d)
		}
	}
	if want := []int{4, 3, 2, 1, 0}; !equal(allowed, want) {
		t.Fatalf("allowed requests' remaining = %v, want %v", allowed, want)
	}
	if d, err := other.Allow(ctx, "user:1:/api/v4/mcp", n, per); err != nil || !d.OK || d.Remaining != 4 {
		t.Fatalf("another deployment's first request = %+v, %v; want allowed with 4 remaining", d, err)
	}
	if got := srv.Do("EXISTS", "dep1:rl:user:1:/api/v4/mcp"); got != "1" {
		t.Fatalf("bucket key under the prefix: EXISTS = %s", got)
	}
	// The key lapses with the bucket: a full bucket holds no information.
	if ttl := srv.Int("PTTL", "dep1:rl:user:1:/api/v4/mcp"); ttl <= 0 || ttl > 60_001 {
		t.Fatalf("bucket key PTTL = %d ms, want within the window", ttl)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Blocked spends nothing and sees what every instance spent.
func TestBlocked_sharedAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newClient(t, srv, "p:", 0, nil), newClient(t, srv, "p:", 0, nil)
	ctx := context.Background()
	const n, per = 2, time.Minute
	for range 3 {
		if blocked, _, err := b.Blocked(ctx, "authfail:192.0.2.1", n, per); err != nil || blocked {
			t.Fatalf("fresh key: blocked %v, %v", blocked, err)
		}
	}
	a.Allow(ctx, "authfail:192.0.2.1", n, per)
	if blocked, _, _ := b.Blocked(ctx, "authfail:192.0.2.1", n, per); blocked {
		t.Fatal("blocked with one failure left")
	}
	a.Allow(ctx, "authfail:192.0.2.1", n, per)
	blocked, retry, err := b.Blocked(ctx, "authfail:192.0.2.1", n, per)
	if err != nil || !blocked || retry <= 29*time.Second || retry > 30*time.Second {
		t.Fatalf("after two failures on the other instance: blocked %v retry %s err %v; want blocked, about 30s", blocked, retry, err)
	}
	if blocked, _, _ := b.Blocked(ctx, "authfail:192.0.2.2", n, per); blocked {
		t.Fatal("another address is blocked")
	}
}

func TestAcquire_capAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newClient(t, srv, "p:", 0, nil), newClient(t, srv, "p:", 0, nil)
	var releases []func()
	for i, c := range []*redislimit.Client{a, a, b} {
		release, ok := c.Acquire(7, 3)
		if !ok {
			t.Fatalf("slot %d refused under the cap", i+1)
		}
		releases = append(releases, release)
	}
	if _, ok := b.Acquire(7, 3); ok {
		t.Fatal("fourth slot on b granted over the cap of 3")
	}
	if _, ok := a.Acquire(7, 3); ok {
		t.Fatal("fourth slot on a granted over the cap of 3")
	}
	if release, ok := a.Acquire(8, 3); !ok {
		t.Fatal("another user's slot refused")
	} else {
		release()
	}
	releases[0]()
	releases[0]() // releasing twice frees one slot only
	if _, ok := b.Acquire(7, 3); !ok {
		t.Fatal("slot refused after one was released")
	}
	if _, ok := b.Acquire(7, 3); ok {
		t.Fatal("a double release freed two slots")
	}
	if a.Held() != 1 || b.Held() != 2 {
		t.Fatalf("held: a %d, b %d; want 1, 2", a.Held(), b.Held())
	}
}

// waitFor polls cond every 50ms until it holds or within passes; it
// returns how long that took.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// A renewed slot outlives its lease; a slot whose instance stopped
// renewing (crashed) frees itself within the lease.
func TestAcquire_leaseRenewedThenLapses(t *testing.T) {
	srv := redistest.Start(t)
	const lease = time.Second
	owner := newClient(t, srv, "p:", lease, nil)
	other := newClient(t, srv, "p:", lease, nil)
	ctx, crash := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); owner.Run(ctx) }()
	for range 2 {
		if _, ok := owner.Acquire(1, 2); !ok {
			t.Fatal("slot refused under the cap")
		}
	}
	time.Sleep(3 * lease)
	if _, ok := other.Acquire(1, 2); ok {
		t.Fatal("a renewed slot lapsed")
	}
	crash()
	<-done
	took := waitFor(t, lease+time.Second, "slots of a stopped instance freed", func() bool {
		release, ok := other.Acquire(1, 2)
		if ok {
			release()
		}
		return ok
	})
	t.Logf("slots freed %s after the owner stopped renewing (lease %s)", took.Round(10*time.Millisecond), lease)
}

// Renewal puts back the slots of open streams that Redis lost (restarted
// empty), and the slots taken while Redis was down.
func TestAcquire_renewalRestoresLostSlots(t *testing.T) {
	srv := redistest.Start(t)
	const lease = time.Second
	c := newClient(t, srv, "p:", lease, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Run(ctx)
	if _, ok := c.Acquire(3, 5); !ok {
		t.Fatal("slot refused")
	}
	srv.Stop()
	if _, ok := c.Acquire(3, 5); !ok {
		t.Fatal("slot refused while Redis is down: the instance's own cap should decide")
	}
	srv.Restart()
	waitFor(t, 5*time.Second, "both slots back in Redis", func() bool { return srv.Int("ZCARD", "p:streams:3") == 2 })
}

// A paused (SIGSTOPped) Redis costs a check at most the timeout, once:
// later checks do not wait for it; it is logged once each way, and the
// limits go back to Redis once it answers.
func TestFailure_pausedThenBack(t *testing.T) {
	srv := redistest.Start(t)
	var log syncBuffer
	c := newClient(t, srv, "p:", 0, &log)
	ctx := context.Background()
	const n, per = 100, time.Minute
	if _, err := c.Allow(ctx, "k", n, per); err != nil || !c.Up() {
		t.Fatalf("first check: %v, up %v", err, c.Up())
	}
	srv.Pause()
	start := time.Now()
	_, err := c.Allow(ctx, "k", n, per)
	if took := time.Since(start); err == nil || took > c.Timeout()+500*time.Millisecond {
		t.Fatalf("check against a paused Redis: err %v after %s; want an error within the timeout %s", err, took, c.Timeout())
	}
	if c.Up() {
		t.Fatal("still up after a failed check")
	}
	start = time.Now()
	for range 100 {
		if _, err := c.Allow(ctx, "k", n, per); !errors.Is(err, redislimit.ErrDown) {
			t.Fatalf("check while down = %v, want ErrDown without asking Redis", err)
		}
	}
	if took := time.Since(start); took > c.Timeout() {
		t.Fatalf("100 checks while down took %s: they waited for Redis", took)
	}
	srv.Resume()
	waitFor(t, 5*time.Second, "limits back in Redis", func() bool {
		_, err := c.Allow(ctx, "k", n, per)
		return err == nil && c.Up()
	})
	if n := srv.Int("EXISTS", "p:rl:k"); n != 1 {
		t.Fatalf("bucket not in Redis after recovery")
	}
	if down, up := log.count("redis unreachable"), log.count("redis reachable again"); down != 1 || up != 1 {
		t.Fatalf("logged %d down and %d up transitions, want 1 and 1", down, up)
	}
}

// Close frees the slots still held, and later checks fail without marking
// Redis down (no outage is logged for a shutdown).
func TestClose_freesHeldSlots(t *testing.T) {
	srv := redistest.Start(t)
	var log syncBuffer
	c := newClient(t, srv, "p:", 0, &log)
	release, ok := c.Acquire(4, 2)
	if !ok {
		t.Fatal("slot refused")
	}
	if _, ok := c.Acquire(4, 2); !ok {
		t.Fatal("slot refused")
	}
	release()
	if n := srv.Int("ZCARD", "p:streams:4"); n != 1 {
		t.Fatalf("slots before Close: %d, want 1", n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := srv.Int("ZCARD", "p:streams:4"); n != 0 {
		t.Fatalf("slots after Close: %d, want 0", n)
	}
	if _, err := c.Allow(context.Background(), "k", 1, time.Minute); err == nil {
		t.Fatal("a check after Close succeeded")
	}
	if !c.Up() || log.count("redis unreachable") != 0 {
		t.Fatalf("Close marked Redis down (up %v, %d outage lines)", c.Up(), log.count("redis unreachable"))
	}
}

// Every window of a list is checked in one step: a token is spent in all
// of them or, when any is empty, in none; each window has its own key.
func TestAllowWindows_allOrNone(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv, "w:", 0, nil)
	ctx := context.Background()
	ws := []redislimit.Window{{Requests: 100, Per: time.Minute}, {Requests: 2, Per: time.Hour}}
	for i := range 2 {
		ds, err := c.AllowWindows(ctx, "u", ws)
		if err != nil || len(ds) != 2 || !ds[0].OK || !ds[1].OK || ds[0].Remaining != 99-i || ds[1].Remaining != 1-i {
			t.Fatalf("take %d = %+v, %v", i+1, ds, err)
		}
	}
	ds, err := c.AllowWindows(ctx, "u", ws)
	if err != nil || ds[0].OK != true || ds[1].OK || ds[1].RetryAfter <= 29*time.Minute || ds[1].RetryAfter > 30*time.Minute {
		t.Fatalf("third take = %+v, %v; want the minute window with room, the hour window refusing ~30min", ds, err)
	}
	// The refused take spent nothing in the minute window.
	ds, err = c.PeekWindows(ctx, "u", ws)
	if err != nil || ds[0].Remaining != 98 || ds[1].OK {
		t.Fatalf("peek = %+v, %v; want 98 left in the minute window, the hour window empty", ds, err)
	}
	if srv.Int("EXISTS", "w:rl:u|60s") != 1 || srv.Int("EXISTS", "w:rl:u|3600s") != 1 {
		t.Fatal("want one key per window")
	}
	if _, err := c.AllowWindows(ctx, "u", nil); err == nil {
		t.Fatal("no windows: want an error")
	}
}
