package ratelimit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/services/redislimit/redistest"
)

func TestParseLimits(t *testing.T) {
	good := []struct {
		in   string
		want ratelimit.Limits
	}{
		{"600/60s", ratelimit.Limits{{Requests: 600, Per: time.Minute}}},
		{"600/60s,5000/1h", ratelimit.Limits{{Requests: 600, Per: time.Minute}, {Requests: 5000, Per: time.Hour}}},
		{" 100/60s , 5/h ", ratelimit.Limits{{Requests: 100, Per: time.Minute}, {Requests: 5, Per: time.Hour}}},
	}
	for _, tt := range good {
		got, on, err := ratelimit.ParseLimits(tt.in)
		if err != nil || !on || len(got) != len(tt.want) {
			t.Fatalf("ParseLimits(%q) = %v, %v, %v; want %v", tt.in, got, on, err, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("ParseLimits(%q)[%d] = %v, want %v", tt.in, i, got[i], tt.want[i])
			}
		}
		back, _, err := ratelimit.ParseLimits(got.String())
		if err != nil || back.String() != got.String() {
			t.Fatalf("ParseLimits(%q) round trip = %v, %v", got.String(), back, err)
		}
	}
	if ls, on, err := ratelimit.ParseLimits("0"); err != nil || on || ls != nil {
		t.Fatalf(`ParseLimits("0") = %v, %v, %v; want off`, ls, on, err)
	}
	bad := []struct{ in, says string }{
		{"600/60s,", "want N/WINDOW"},
		{",600/60s", "want N/WINDOW"},
		{"600/60s,0", "use 0 alone"},
		{"600/60s,0/1h", "allows nothing"},
		{"600/60s,10/1m", "two windows of 60s"},
		{"600/60s,5000/1x", "window"},
		{"600/60s,abc/1h", "request count"},
		{"600/60s;5000/1h", "window"},
		{"1/1s,2/2s,3/3s,4/4s,5/5s,6/6s,7/7s,8/8s,9/9s", "at most 8 windows"},
	}
	for _, tt := range bad {
		_, _, err := ratelimit.ParseLimits(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParseLimits(%q) error = %v, want one quoting the list and saying %q", tt.in, err, tt.says)
		}
	}
}

// fiveAnHour is GitLab.com's shape of limits at a small scale: a minute
// window that allows plenty and an hour window that does not.
var fiveAnHour = ratelimit.Limits{{Requests: 100, Per: time.Minute}, {Requests: 5, Per: time.Hour}}

// checkFiveAnHour takes six times: five pass, each naming the hour window
// (fewest remaining), the sixth is refused by the hour window although the
// minute window has room; a minute later it is still refused.
func checkFiveAnHour(t *testing.T, take func() ratelimit.Decision, wait func(time.Duration)) {
	t.Helper()
	for i := range 5 {
		d := take()
		if !d.OK || d.Remaining != 4-i || d.Limit != fiveAnHour[1] {
			t.Fatalf("call %d = %+v, want allowed with %d remaining, naming 5/1h", i+1, d, 4-i)
		}
	}
	d := take()
	if d.OK || d.Limit != fiveAnHour[1] || d.RetryAfter < 11*time.Minute || d.RetryAfter > 12*time.Minute {
		t.Fatalf("sixth call = %+v, want refused by 5/1h with ~12min to wait", d)
	}
	wait(time.Minute)
	if d := take(); d.OK || d.Limit != fiveAnHour[1] {
		t.Fatalf("a minute later = %+v, want still refused by 5/1h", d)
	}
}

func TestLimiter_windows(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiters(fiveAnHour, clk.Now)
	ctx := context.Background()
	checkFiveAnHour(t, func() ratelimit.Decision { return l.TakeAll(ctx, "u", nil) }, clk.Add)

	// The minute window binds when it is the tighter: 3/60s beside 100/1h.
	l2 := ratelimit.NewLimiters(ratelimit.Limits{{Requests: 100, Per: time.Hour}, {Requests: 3, Per: time.Minute}}, clk.Now)
	for range 3 {
		if d := l2.TakeAll(ctx, "v", nil); !d.OK || d.Limit.Per != time.Minute {
			t.Fatalf("take = %+v, want allowed naming 3/60s", d)
		}
	}
	d := l2.TakeAll(ctx, "v", nil)
	if d.OK || d.Limit.Per != time.Minute || d.RetryAfter != 20*time.Second {
		t.Fatalf("fourth take = %+v, want refused by 3/60s, retry after 20s", d)
	}
	// Refused requests spend nothing in any window: after 20s one passes,
	// and the hour window has counted three, not four.
	clk.Add(20 * time.Second)
	if d := l2.TakeAll(ctx, "v", nil); !d.OK {
		t.Fatalf("take after 20s = %+v, want allowed", d)
	}
	if d := l2.Peek(ctx, "v"); d.Limit.Per != time.Minute {
		t.Fatalf("peek = %+v, want the minute window", d)
	}
	// A per-key list replaces the limiter's.
	if d := l2.TakeAll(ctx, "w", ratelimit.Limits{{Requests: 1, Per: time.Hour}}); !d.OK || d.Remaining != 0 {
		t.Fatalf("own list take = %+v", d)
	}
	if d := l2.TakeAll(ctx, "w", ratelimit.Limits{{Requests: 1, Per: time.Hour}}); d.OK {
		t.Fatalf("own list second take = %+v, want refused", d)
	}
}

func TestLimiter_windowsInRedis(t *testing.T) {
	srv := redistest.Start(t)
	a := ratelimit.NewLimiters(fiveAnHour, nil, ratelimit.Redis(redisClient(t, srv, "p:")))
	b := ratelimit.NewLimiters(fiveAnHour, nil, ratelimit.Redis(redisClient(t, srv, "p:")))
	ctx := context.Background()
	n := 0
	// Two instances share the windows: calls alternate between them.
	take := func() ratelimit.Decision {
		n++
		if n%2 == 0 {
			return b.TakeAll(ctx, "u", nil)
		}
		return a.TakeAll(ctx, "u", nil)
	}
	checkFiveAnHour(t, take, func(time.Duration) {})
	if srv.Int("EXISTS", "p:rl:u|60s") != 1 || srv.Int("EXISTS", "p:rl:u|3600s") != 1 {
		t.Fatal("want one Redis key per window")
	}
	// The refused calls spent nothing: the minute window counted five
	// (600ms each), so its bucket is full again within 3s.
	if ttl := srv.Int("PTTL", "p:rl:u|60s"); ttl < 2500 || ttl > 3001 {
		t.Fatalf("minute window's key lives %dms, want about 3000 (five calls counted)", ttl)
	}
	if d := a.Peek(ctx, "u"); d.OK || d.Limit != fiveAnHour[1] {
		t.Fatalf("peek = %+v, want refused by 5/1h", d)
	}
}

func TestMiddleware_windowsHeaders(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiters(fiveAnHour, clk.Now)
	handled := 0
	r := newEngine(l, &handled)
	for i := range 5 {
		w := post(r, "alice", "")
		if w.Code != http.StatusOK || w.Header().Get("RateLimit-Policy") != "5;w=3600" ||
			w.Header().Get("RateLimit-Limit") != "5" || w.Header().Get("RateLimit-Remaining") != string(rune('4'-i)) {
			t.Fatalf("call %d: %d %v", i+1, w.Code, w.Header())
		}
	}
	w := post(r, "alice", "")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("RateLimit-Policy") != "5;w=3600" || w.Header().Get("Retry-After") != "720" {
		t.Fatalf("sixth call: %d %v %s", w.Code, w.Header(), w.Body)
	}
	var body struct {
		Error struct {
			Data struct {
				Limit         int   `json:"limit"`
				WindowSeconds int64 `json:"windowSeconds"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Data.Limit != 5 || body.Error.Data.WindowSeconds != 3600 {
		t.Fatalf("429 body = %s (%v), want data naming 5 per 3600s", w.Body, err)
	}
	if handled != 5 {
		t.Fatalf("handled = %d, want 5", handled)
	}
}
