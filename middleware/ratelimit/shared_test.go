package ratelimit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/services/redislimit"
	"gitlab.com/glmcp/glmcp/services/redislimit/redistest"
)

// redisClient is a client of srv's Redis under prefix, closed with the test.
func redisClient(tb testing.TB, srv *redistest.Server, prefix string) *redislimit.Client {
	tb.Helper()
	c, err := redislimit.New(redislimit.Config{URL: srv.URL(), Prefix: prefix})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// The limiter counts in process while Redis is down, and in Redis again
// after: no request is refused or allowed for want of Redis.
func TestLimiter_fallsBackToProcess(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv, "p:")
	ctx := context.Background()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 3, Per: time.Minute}, nil, ratelimit.Redis(c))
	if d := l.Take(ctx, "u", ratelimit.Limit{}); !d.OK || d.Remaining != 2 {
		t.Fatalf("first take = %+v", d)
	}
	srv.Stop()
	// In process the bucket starts full: three more pass, the fourth not.
	for i, want := range []bool{true, true, true, false} {
		if d := l.Take(ctx, "u", ratelimit.Limit{}); d.OK != want {
			t.Fatalf("take %d while Redis is down = %+v, want OK %v", i+1, d, want)
		}
	}
	srv.Restart()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		l.Take(ctx, "probe", ratelimit.Limit{})
		if c.Up() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("limits not back in Redis within 5s of its restart")
		}
	}
	// Redis restarted empty: a full bucket there, counted in Redis again.
	if d := l.Take(ctx, "u", ratelimit.Limit{}); !d.OK || d.Remaining != 2 || srv.Int("EXISTS", "p:rl:u") != 1 {
		t.Fatalf("take after recovery = %+v, want counted in Redis with 2 remaining", d)
	}
}

// BenchmarkTake_redis is one rate-limit check counted in Redis (one
// EVALSHA round trip on loopback), beside BenchmarkTake_local.
func BenchmarkTake_redis(b *testing.B) {
	srv := redistest.Start(b)
	c := redisClient(b, srv, "bench:")
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 1_000_000, Per: time.Second}, nil, ratelimit.Redis(c))
	benchmarkTake(b, l, c)
}

func BenchmarkTake_local(b *testing.B) {
	benchmarkTake(b, ratelimit.NewLimiter(ratelimit.Limit{Requests: 1_000_000, Per: time.Second}, nil), nil)
}

func benchmarkTake(b *testing.B, l *ratelimit.Limiter, c *redislimit.Client) {
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Take(ctx, "user:"+strconv.Itoa(i%64)+":/api/v4/mcp", ratelimit.Limit{})
			i++
		}
	})
	if c != nil && !c.Up() {
		b.Fatal("Redis was marked down during the benchmark: the numbers are the fallback's")
	}
}

// Peek spends nothing and says the same in process and in Redis: the
// tokens the bucket holds, and (once it is empty) when it holds one again.
func TestLimiter_Peek(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv, "peek:")
	lim := ratelimit.Limit{Requests: 3, Per: time.Minute}
	ctx := context.Background()
	for name, l := range map[string]*ratelimit.Limiter{
		"in process": ratelimit.NewLimiter(lim, nil),
		"in Redis":   ratelimit.NewLimiter(lim, nil, ratelimit.Redis(c)),
	} {
		t.Run(name, func(t *testing.T) {
			near := func(d, want time.Duration) bool { return d <= want && d > want-2*time.Second }
			for range 2 {
				if d := l.Peek(ctx, "k"); !d.OK || d.Remaining != 3 || d.Reset != 0 {
					t.Fatalf("fresh key: Peek = %+v, want OK with 3 remaining", d)
				}
			}
			l.Take(ctx, "k", ratelimit.Limit{})
			if d := l.Peek(ctx, "k"); !d.OK || d.Remaining != 2 || !near(d.Reset, 20*time.Second) {
				t.Fatalf("after one take: Peek = %+v, want OK, 2 remaining, reset about 20s", d)
			}
			l.Take(ctx, "k", ratelimit.Limit{})
			l.Take(ctx, "k", ratelimit.Limit{})
			d := l.Peek(ctx, "k")
			if d.OK || d.Remaining != 0 || !near(d.RetryAfter, 20*time.Second) || !near(d.Reset, time.Minute) {
				t.Fatalf("after three takes: Peek = %+v, want empty, retry after about 20s, reset about 60s", d)
			}
			if d := l.Take(ctx, "k", ratelimit.Limit{}); d.OK {
				t.Fatal("Take passed while Peek said empty")
			}
		})
	}
	if !c.Up() {
		t.Fatal("Redis was marked down: the Redis case counted in process")
	}
	var off *ratelimit.Limiter
	if d := off.Peek(ctx, "k"); !d.OK {
		t.Fatal("nil limiter refused")
	}
}
