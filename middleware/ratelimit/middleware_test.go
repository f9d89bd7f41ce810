package ratelimit_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

// newEngine serves POST /mcp behind the limiter, keyed by X-User, or by
// client address without it; X-Skip: 1 gives the empty key. handled counts
// the requests that got through.
func newEngine(l *ratelimit.Limiter, handled *int) *gin.Engine {
	r := gin.New()
	r.POST("/mcp", handlers.RenderRefusals, ratelimit.Middleware(l, func(c *gin.Context) string {
		if c.GetHeader("X-Skip") == "1" {
			return ""
		}
		if u := c.GetHeader("X-User"); u != "" {
			return "user:" + u + ":ce"
		}
		return "ip:" + c.ClientIP()
	}), func(c *gin.Context) {
		*handled++
		c.String(http.StatusOK, "ok")
	})
	return r
}

func post(r http.Handler, user, remoteAddr string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	if user != "" {
		req.Header.Set("X-User", user)
	}
	if remoteAddr != "" {
		req.RemoteAddr = remoteAddr
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

func TestMiddleware(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 2, Per: 60 * time.Second}, clk.Now)
	handled := 0
	r := newEngine(l, &handled)

	wantHeaders := func(t *testing.T, w *httptest.ResponseRecorder, remaining, reset string) {
		t.Helper()
		for name, want := range map[string]string{
			"RateLimit-Limit":     "2",
			"RateLimit-Remaining": remaining,
			"RateLimit-Reset":     reset,
			"RateLimit-Policy":    "2;w=60",
		} {
			if got := w.Header().Get(name); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
	}

	w := post(r, "1", "")
	if w.Code != http.StatusOK {
		t.Fatalf("first request: %d", w.Code)
	}
	wantHeaders(t, w, "1", "30")
	if w.Header().Get("Retry-After") != "" {
		t.Errorf("Retry-After on an allowed request")
	}

	w = post(r, "1", "")
	if w.Code != http.StatusOK {
		t.Fatalf("second (limit-th) request: %d", w.Code)
	}
	wantHeaders(t, w, "0", "60")

	clk.Add(10 * time.Second)
	w = post(r, "1", "")
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("over the limit: %d, want 429", w.Code)
	}
	wantHeaders(t, w, "0", "50")
	if got := w.Header().Get("Retry-After"); got != "20" {
		t.Errorf("Retry-After = %q, want 20", got)
	}
	if got := w.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	wantBody := `{"jsonrpc":"2.0","error":{"code":-31029,"message":"Rate limit exceeded, retry in 20 seconds","data":{"retryAfterSeconds":20,"limit":2,"windowSeconds":60}}}`
	if got := w.Body.String(); got != wantBody {
		t.Errorf("body = %s\nwant   %s", got, wantBody)
	}
	if handled != 2 {
		t.Fatalf("handler ran %d times, want 2 (429 must abort)", handled)
	}

	// Another user is unaffected.
	if w := post(r, "2", ""); w.Code != http.StatusOK {
		t.Fatalf("other user: %d", w.Code)
	}
	// After the refill the first user passes again.
	clk.Add(20 * time.Second)
	if w := post(r, "1", ""); w.Code != http.StatusOK {
		t.Fatalf("after refill: %d", w.Code)
	}
}

func TestMiddleware_retryAfterAtLeastOneSecond(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.DefaultLimit, clk.Now) // one token per 100ms
	handled := 0
	r := newEngine(l, &handled)
	for range 600 {
		post(r, "1", "")
	}
	w := post(r, "1", "")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("status %d, Retry-After %q; want 429, 1", w.Code, w.Header().Get("Retry-After"))
	}
}

func TestMiddleware_unauthenticatedByClientAddress(t *testing.T) {
	clk := newClock()
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 1, Per: time.Minute}, clk.Now)
	handled := 0
	r := newEngine(l, &handled)
	if w := post(r, "", "192.0.2.1:1234"); w.Code != http.StatusOK {
		t.Fatalf("first address: %d", w.Code)
	}
	if w := post(r, "", "192.0.2.1:5678"); w.Code != http.StatusTooManyRequests {
		t.Fatalf("same address, other port: %d, want 429", w.Code)
	}
	if w := post(r, "", "192.0.2.2:1234"); w.Code != http.StatusOK {
		t.Fatalf("second address: %d", w.Code)
	}
}

func TestMiddleware_disabled(t *testing.T) {
	for _, l := range []*ratelimit.Limiter{nil, ratelimit.NewLimiter(ratelimit.Limit{}, nil)} {
		handled := 0
		r := newEngine(l, &handled)
		for range 5 {
			w := post(r, "1", "")
			if w.Code != http.StatusOK || w.Header().Get("RateLimit-Limit") != "" {
				t.Fatalf("disabled limiter: status %d, RateLimit-Limit %q", w.Code, w.Header().Get("RateLimit-Limit"))
			}
		}
		if handled != 5 {
			t.Fatalf("handled %d, want 5", handled)
		}
	}
}

func TestMiddleware_emptyKeyIsNotLimited(t *testing.T) {
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 1, Per: time.Minute}, newClock().Now)
	handled := 0
	r := newEngine(l, &handled)
	for range 3 {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("X-Skip", "1")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != http.StatusOK || w.Header().Get("RateLimit-Limit") != "" {
			t.Fatalf("empty key: status %d, RateLimit-Limit %q; want 200 without headers", w.Code, w.Header().Get("RateLimit-Limit"))
		}
	}
	if l.Len() != 0 {
		t.Fatalf("empty key created %d buckets", l.Len())
	}
}

func TestMiddleware_nilKeyFuncKeysByClientAddress(t *testing.T) {
	l := ratelimit.NewLimiter(ratelimit.Limit{Requests: 1, Per: time.Minute}, newClock().Now)
	r := gin.New()
	r.POST("/mcp", handlers.RenderRefusals, ratelimit.Middleware(l, nil), func(c *gin.Context) { c.Status(http.StatusOK) })
	if w := post(r, "", "192.0.2.1:1"); w.Code != http.StatusOK {
		t.Fatalf("first: %d", w.Code)
	}
	if w := post(r, "", "192.0.2.1:2"); w.Code != http.StatusTooManyRequests {
		t.Fatalf("second from the same address: %d, want 429", w.Code)
	}
	if w := post(r, "", "192.0.2.3:1"); w.Code != http.StatusOK {
		t.Fatalf("other address: %d", w.Code)
	}
}
