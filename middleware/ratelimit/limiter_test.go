package ratelimit_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/internal/clocktest"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
)

// newClock returns the shared test clock, at a fixed start.
func newClock() *clocktest.Clock { return clocktest.New(time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)) }

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in      string
		want    ratelimit.Limit
		enabled bool
		wantErr bool
	}{
		{in: "600/60s", want: ratelimit.Limit{Requests: 600, Per: time.Minute}, enabled: true},
		{in: " 10 / 1m ", want: ratelimit.Limit{Requests: 10, Per: time.Minute}, enabled: true},
		{in: "5/s", want: ratelimit.Limit{Requests: 5, Per: time.Second}, enabled: true},
		{in: "100/h", want: ratelimit.Limit{Requests: 100, Per: time.Hour}, enabled: true},
		{in: "1/24h", want: ratelimit.Limit{Requests: 1, Per: 24 * time.Hour}, enabled: true},
		{in: "0"},
		{in: "0/60s"},
		{in: "", wantErr: true},
		{in: "600", wantErr: true},
		{in: "-1/60s", wantErr: true},
		{in: "abc/60s", wantErr: true},
		{in: "600/", wantErr: true},
		{in: "600/60", wantErr: true},
		{in: "600/0s", wantErr: true},
		{in: "600/-1m", wantErr: true},
		{in: "600/500ms", wantErr: true},
		{in: "600/1500ms", wantErr: true},
		{in: "600/25h", wantErr: true},
		{in: "2000000/1s", wantErr: true},
		{in: "600/60s/1", wantErr: true},
		{in: "off", wantErr: true},
	}
	for _, tt := range tests {
		got, enabled, err := ratelimit.ParseLimit(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseLimit(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want || enabled != tt.enabled {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v, %v", tt.in, got, enabled, tt.want, tt.enabled)
		}
	}
}

func TestLimit_StringAndPolicy(t *testing.T) {
	l := ratelimit.DefaultLimit
	if got := l.String(); got != "600/60s" {
		t.Errorf("String() = %q", got)
	}
	if got := l.Policy(); got != "600;w=60" {
		t.Errorf("Policy() = %q", got)
	}
	back, _, err := ratelimit.ParseLimit(l.String())
	if err != nil || back != l {
		t.Errorf("ParseLimit(String()) = %+v, %v", back, err)
	}
}

type allowResult struct {
	ok         bool
	remaining  int
	retryAfter time.Duration
	reset      time.Duration
}

func allow(l *ratelimit.Limiter, key string) allowResult {
	ok, rem, retry, reset := l.Allow(key)
	return allowResult{ok, rem, retry, reset}
}

func TestLimiter_Allow(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 3, Per: 3 * time.Second}, clk.Now)

	// A burst of the whole limit passes, counting down.
	for i, want := range []allowResult{
		{true, 2, 0, 1 * time.Second},
		{true, 1, 0, 2 * time.Second},
		{true, 0, 0, 3 * time.Second},
	} {
		if got := allow(l, "alice"); got != want {
			t.Fatalf("request %d = %+v, want %+v", i+1, got, want)
		}
	}
	// The next one is refused until one token has refilled.
	if got, want := allow(l, "alice"), (allowResult{false, 0, time.Second, 3 * time.Second}); got != want {
		t.Fatalf("over the limit = %+v, want %+v", got, want)
	}
	// Refused requests take nothing.
	clk.Add(400 * time.Millisecond)
	if got, want := allow(l, "alice"), (allowResult{false, 0, 600 * time.Millisecond, 2600 * time.Millisecond}); got != want {
		t.Fatalf("still over = %+v, want %+v", got, want)
	}
	// Another key is unaffected.
	if got := allow(l, "bob"); !got.ok || got.remaining != 2 {
		t.Fatalf("other key = %+v, want allowed with 2 remaining", got)
	}
	// Refill is continuous: after 1 s one more request passes.
	clk.Add(600 * time.Millisecond)
	if got := allow(l, "alice"); !got.ok || got.remaining != 0 {
		t.Fatalf("after one interval = %+v, want allowed with 0 remaining", got)
	}
	if got := allow(l, "alice"); got.ok {
		t.Fatalf("second after one interval = %+v, want refused", got)
	}
	// After a whole window the bucket is full again, and no fuller.
	clk.Add(time.Hour)
	for i := range 3 {
		if got := allow(l, "alice"); !got.ok || got.remaining != 2-i {
			t.Fatalf("after refill, request %d = %+v", i+1, got)
		}
	}
	if got := allow(l, "alice"); got.ok {
		t.Fatalf("burst beyond the limit after a long idle = %+v, want refused", got)
	}
}

func TestLimiter_defaultLimitCounts(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.DefaultLimit, clk.Now)
	for i := range 600 {
		if ok, _, _, _ := l.Allow("u1:ce"); !ok {
			t.Fatalf("request %d refused, want 600 allowed", i+1)
		}
	}
	ok, remaining, retry, _ := l.Allow("u1:ce")
	if ok || remaining != 0 || retry != 100*time.Millisecond {
		t.Fatalf("request 601 = %v, %d, %s; want refused, 0, 100ms", ok, remaining, retry)
	}
}

func TestLimiter_disabled(t *testing.T) {
	for _, l := range []*ratelimit.Limiter{
		ratelimit.NewLimiter(ratelimit.Limit{}, nil),
		ratelimit.NewLimiter(ratelimit.Limit{Requests: 5}, nil),
		nil,
	} {
		if l.Enabled() {
			t.Fatalf("limiter %+v enabled", l)
		}
		for range 10 {
			if ok, _, _, _ := l.Allow("k"); !ok {
				t.Fatal("disabled limiter refused a request")
			}
		}
	}
}

func TestLimiter_idleBucketsAreSwept(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 10, Per: 10 * time.Second}, clk.Now)
	for i := range 500 {
		l.Allow(fmt.Sprintf("ip:10.0.%d.%d", i/256, i%256))
	}
	if got := l.Len(); got != 500 {
		t.Fatalf("Len = %d, want 500", got)
	}
	// Once every bucket has refilled, the next call sweeps them all.
	clk.Add(10 * time.Second)
	l.Allow("fresh")
	if got := l.Len(); got != 1 {
		t.Fatalf("Len after sweep = %d, want 1", got)
	}
}

func TestLimiter_maxKeysBoundsMemory(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 5, Per: time.Minute}, clk.Now, ratelimit.WithMaxKeys(10))
	for range 5 {
		l.Allow("abuser")
	}
	for i := range 1000 {
		l.Allow(fmt.Sprintf("drive-by-%d", i))
		if got := l.Len(); got > 10 {
			t.Fatalf("Len = %d after %d keys, want at most 10", got, i+1)
		}
	}
	// Eviction drops the fullest buckets first: the exhausted one survives.
	if ok, _, _, _ := l.Allow("abuser"); ok {
		t.Fatal("exhausted key was evicted and got a fresh bucket")
	}
}

func TestLimiter_concurrent(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 100, Per: time.Minute}, clk.Now, ratelimit.WithMaxKeys(1000))
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if ok, _, _, _ := l.Allow("shared"); ok {
					allowed.Add(1)
				}
				l.Allow(fmt.Sprintf("g%d-%d", g, i%50))
				if i%64 == 0 {
					clk.Add(0) // touch the clock concurrently too
					_ = l.Len()
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 100 {
		t.Fatalf("%d requests allowed on the shared key, want exactly 100", got)
	}
	if !strings.HasPrefix(l.Limit().String(), "100/") {
		t.Fatalf("Limit() = %v", l.Limit())
	}
}

func BenchmarkAllow_parallel(b *testing.B) {
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 1_000_000, Per: time.Second}, nil)
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%d:ce", i)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Allow(keys[i%len(keys)])
			i++
		}
	})
}

func BenchmarkAllow_hotKey(b *testing.B) {
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 1_000_000, Per: time.Second}, nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow("user:1:ce")
		}
	})
}

func TestLimiter_Blocked(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 2, Per: time.Minute}, clk.Now)
	if b, _ := l.Blocked("k"); b {
		t.Fatal("unknown key blocked")
	}
	for i := 0; i < 3; i++ { // Blocked spends nothing
		if b, _ := l.Blocked("k"); b {
			t.Fatalf("check %d blocked a fresh key", i)
		}
	}
	l.Allow("k")
	if b, _ := l.Blocked("k"); b {
		t.Fatal("blocked with one request left")
	}
	l.Allow("k")
	b, retry := l.Blocked("k")
	if !b || retry != 30*time.Second {
		t.Fatalf("Blocked = %v, %s; want true, 30s", b, retry)
	}
	if ok, _, _, _ := l.Allow("k"); ok {
		t.Fatal("Allow passed while Blocked said no")
	}
	clk.Add(30 * time.Second)
	if b, _ := l.Blocked("k"); b {
		t.Fatal("still blocked after the refill")
	}
	if b, _ := l.Blocked("other"); b {
		t.Fatal("another key blocked")
	}
	var off *ratelimit.Limiter
	if b, _ := off.Blocked("k"); b {
		t.Fatal("nil limiter blocked")
	}
}
