package spec

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// withRateLimit sets GLMCP_RATE_LIMIT.
func withRateLimit(spec string) option { return func(c *app.Config) { c.RateLimit = spec } }

// withTrustedProxies sets GLMCP_TRUSTED_PROXIES.
func withTrustedProxies(p ...string) option {
	return func(c *app.Config) { c.TrustedProxies = p }
}

// expectRateHeaders asserts the RateLimit-* headers of a limited response
// under the 3/60s limit.
func expectRateHeaders(t *testing.T, r *response, remaining int) {
	t.Helper()
	for name, want := range map[string]string{
		"RateLimit-Limit":     "3",
		"RateLimit-Remaining": strconv.Itoa(remaining),
		"RateLimit-Policy":    "3;w=60",
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if n, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil || n < 1 || n > 60 {
		t.Errorf("RateLimit-Reset = %q, want whole seconds in 1..60", r.Header.Get("RateLimit-Reset"))
	}
}

// expectRateLimited asserts a 429: Retry-After, headers, and a JSON-RPC
// error body without id that validates against both eras' schemas.
func expectRateLimited(t *testing.T, r *response) {
	t.Helper()
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("status = %d, want 429; body %s", r.Status, r.Body)
	}
	expectRateHeaders(t, r, 0)
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > 20 {
		t.Fatalf("Retry-After = %q, want whole seconds in 1..20 (one request per 20 s)", r.Header.Get("Retry-After"))
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if r.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("429 carries a challenge: %q", r.Header.Get("WWW-Authenticate"))
	}
	validateMessage(t, revModern, "JSONRPCErrorResponse", r.Body)
	validateMessage(t, rev20251125, "JSONRPCErrorResponse", r.Body)
	var body struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				RetryAfterSeconds int `json:"retryAfterSeconds"`
				Limit             int `json:"limit"`
				WindowSeconds     int `json:"windowSeconds"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("body: %v; %s", err, r.Body)
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(r.Body, &members)
	if _, ok := members["id"]; ok {
		t.Errorf("429 body has an id member: %s", r.Body)
	}
	e := body.Error
	if e.Code != -31029 || e.Message != "Rate limit exceeded, retry in "+strconv.Itoa(retry)+" seconds" ||
		e.Data.RetryAfterSeconds != retry || e.Data.Limit != 3 || e.Data.WindowSeconds != 60 {
		t.Fatalf("error = %+v, want code -31029, retry %d s, limit 3, window 60", e, retry)
	}
}

func TestRateLimit_perUser(t *testing.T) {
	h := startServer(t, withRateLimit("3/60s"))
	for i := range 3 {
		r := h.send(t, call{User: "alice", ID: i, Method: "tools/list", Params: map[string]any{}})
		if r.Status != http.StatusOK {
			t.Fatalf("request %d: status %d; body %s", i+1, r.Status, r.Body)
		}
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
		expectRateHeaders(t, r, 2-i)
	}

	t.Run("the next request is 429", func(t *testing.T) {
		expectRateLimited(t, h.send(t, call{User: "alice", ID: 4, Method: "tools/list", Params: map[string]any{}}))
		expectRateLimited(t, h.send(t, call{Era: modern, User: "alice", ID: 5, Method: "tools/list"}))
	})
	t.Run("another token of the same user shares the bucket", func(t *testing.T) {
		raw, _ := authMint(t, h, "alice", []string{"mcp"}, nil)
		expectRateLimited(t, h.send(t, call{User: h.withToken("alice-2", raw), ID: 6, Method: "tools/list", Params: map[string]any{}}))
	})
	t.Run("another user is unaffected", func(t *testing.T) {
		// bob has his own full bucket while alice's is empty: all of his
		// limit passes, and only his own next request is refused.
		for i := range 3 {
			r := h.send(t, call{User: "bob", ID: i, Method: "tools/list", Params: map[string]any{}})
			if r.Status != http.StatusOK {
				t.Fatalf("bob request %d: status %d; body %s", i+1, r.Status, r.Body)
			}
			validateResult(t, rev20251125, "ListToolsResult", r.Body)
			expectRateHeaders(t, r, 2-i)
		}
		expectRateLimited(t, h.send(t, call{User: "bob", ID: 4, Method: "tools/list", Params: map[string]any{}}))
	})
}

func TestRateLimit_perGroup(t *testing.T) {
	h := startServer(t, withRateLimit("3/60s"), withEE())
	for i := range 3 {
		r := h.send(t, call{User: "alice", ID: i, Method: "tools/list", Params: map[string]any{}})
		if r.Status != http.StatusOK {
			t.Fatalf("CE request %d: %d %s", i+1, r.Status, r.Body)
		}
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
	}
	expectRateLimited(t, h.send(t, call{User: "alice", ID: 4, Method: "tools/list", Params: map[string]any{}}))

	// The EE endpoint has its own bucket.
	for i := range 3 {
		r := h.send(t, call{URL: h.EE, User: "alice", ID: i, Method: "tools/list", Params: map[string]any{}})
		if r.Status != http.StatusOK {
			t.Fatalf("EE request %d after CE is exhausted: %d %s", i+1, r.Status, r.Body)
		}
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
		expectRateHeaders(t, r, 2-i)
	}
	expectRateLimited(t, h.send(t, call{URL: h.EE, User: "alice", ID: 4, Method: "tools/list", Params: map[string]any{}}))
}

// anonymous posts a tools/list without a credential.
func anonymous(t *testing.T, h *harness, url string, header http.Header) *response {
	t.Helper()
	return h.send(t, call{URL: url, Method: "tools/list", Params: map[string]any{}, Header: header})
}

func TestRateLimit_unauthenticatedPerAddress(t *testing.T) {
	h := startServer(t, withRateLimit("3/60s"), func(c *app.Config) { c.AuthFailureLimit = "30/60s" })
	for i := range 3 {
		r := anonymous(t, h, h.CE, nil)
		expectAuthFailure(t, r, http.StatusUnauthorized, anonymousHintBody(), `Bearer realm="GitLab"`)
		expectRateHeaders(t, r, 2-i)
	}
	// The fourth is refused before authentication.
	expectRateLimited(t, anonymous(t, h, h.CE, nil))

	t.Run("a spoofed X-Forwarded-For does not change the key", func(t *testing.T) {
		for _, hd := range []http.Header{
			{"X-Forwarded-For": {"203.0.113.7"}},
			{"X-Real-Ip": {"203.0.113.8"}},
			{"X-Forwarded-For": {"198.51.100.1, 203.0.113.9"}},
		} {
			expectRateLimited(t, anonymous(t, h, h.CE, hd))
		}
	})
	t.Run("requests with a credential are limited per user, not per address", func(t *testing.T) {
		r := h.send(t, call{User: "alice", Method: "tools/list", Params: map[string]any{}})
		if r.Status != http.StatusOK {
			t.Fatalf("alice from the exhausted address: %d %s", r.Status, r.Body)
		}
		expectRateHeaders(t, r, 2)
		// A credential that fails is refused with 401 (not counted per
		// address either): it spends one of the address's failed
		// authentications (30/60s here), whose headers it carries.
		r = h.send(t, call{Method: "tools/list", Params: map[string]any{}, Header: auth("glpat-AAAAAAAAAAAAAAAAAAAA")})
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("bad credential from the exhausted address: %d %s", r.Status, r.Body)
		}
		expectFailureHeaders(t, r, 30, 29)
	})
}

func TestRateLimit_trustedProxyForwardsTheClientAddress(t *testing.T) {
	h := startServer(t, withRateLimit("3/60s"), withTrustedProxies("127.0.0.1/8", "::1"))
	from := func(client string) http.Header { return http.Header{"X-Forwarded-For": {client}} }
	for range 3 {
		if r := anonymous(t, h, h.CE, from("203.0.113.7")); r.Status != http.StatusUnauthorized {
			t.Fatalf("status %d; body %s", r.Status, r.Body)
		}
	}
	expectRateLimited(t, anonymous(t, h, h.CE, from("203.0.113.7")))
	// Behind a trusted proxy, another client has its own bucket.
	r := anonymous(t, h, h.CE, from("203.0.113.8"))
	if r.Status != http.StatusUnauthorized {
		t.Fatalf("another client behind the proxy: %d, want 401; body %s", r.Status, r.Body)
	}
	expectRateHeaders(t, r, 2)
}

func TestRateLimit_config(t *testing.T) {
	for _, bad := range [][]string{{"not-an-ip"}, {"10.0.0.0/33"}, {"127.0.0.1", ""}} {
		cfg := app.Defaults()
		cfg.TrustedProxies = bad
		err := cfg.Validate()
		if err == nil {
			t.Fatalf("TrustedProxies %q: Validate = nil, want an error", bad)
		}
		if want := "GLMCP_TRUSTED_PROXIES"; !strings.Contains(err.Error(), want) {
			t.Fatalf("TrustedProxies %q: error %q does not name %s", bad, err, want)
		}
	}
	cfg := app.Defaults()
	cfg.TrustedProxies = []string{"10.0.0.0/8", "192.0.2.1", "2001:db8::/32"}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("valid proxies: %v", err)
	}
}

// Ensure a user's own limit, set with the CLI while the server runs,
// applies to the user's next requests at once (the identity cache hears of
// the change), names itself in the headers and the 429, and that
// "default" gives the server's limit back.
func TestRateLimit_userOwnLimit(t *testing.T) {
	h := startServer(t, withRateLimit("600/60s"))
	ping := func() *response { return h.send(t, call{User: "alice", Method: "ping"}) }
	if r := ping(); r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "600" {
		t.Fatalf("before: %d, RateLimit-Limit %q", r.Status, r.Header.Get("RateLimit-Limit"))
	}
	h.runGlmcp(t, "users", "set-rate-limit", "alice", "3/60s")
	allowed := 0
	var last *response
	eventually(t, "alice's own limit applies", func() bool {
		last = ping()
		return last.Header.Get("RateLimit-Limit") == "3"
	})
	for last.Status == http.StatusOK {
		if allowed++; allowed > 3 {
			t.Fatalf("%d requests allowed under alice's own 3/60s", allowed)
		}
		last = ping()
	}
	expectRateLimited(t, last)
	// Bob keeps the server's limit.
	if r := h.send(t, call{User: "bob", Method: "ping"}); r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "600" {
		t.Fatalf("bob: %d, RateLimit-Limit %q", r.Status, r.Header.Get("RateLimit-Limit"))
	}
	h.runGlmcp(t, "users", "set-rate-limit", "alice", "default")
	eventually(t, "the server's limit applies to alice again", func() bool {
		r := ping()
		return r.Status == http.StatusOK && r.Header.Get("RateLimit-Limit") == "600" && r.Header.Get("RateLimit-Policy") == "600;w=60"
	})
}

// Ensure a list of windows is enforced whole over HTTP: under
// 100/60s,5/1h the sixth request is refused by the hour window although
// the minute window has room, and the headers, Retry-After and the 429's
// data name the hour window, the one closest to running out. A user's own
// list, set with the CLI, applies the same way.
func TestRateLimit_windows(t *testing.T) {
	h := startServer(t, withRateLimit("100/60s,5/1h"))
	ping := func(user string) *response { return h.send(t, call{User: user, Method: "ping"}) }
	for i := range 5 {
		r := ping("alice")
		if r.Status != http.StatusOK || r.Header.Get("RateLimit-Policy") != "5;w=3600" ||
			r.Header.Get("RateLimit-Limit") != "5" || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(4-i) {
			t.Fatalf("request %d: %d, headers %v", i+1, r.Status, r.Header)
		}
	}
	r := ping("alice")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("RateLimit-Policy") != "5;w=3600" {
		t.Fatalf("sixth request: %d, headers %v", r.Status, r.Header)
	}
	if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 700 || n > 720 {
		t.Fatalf("Retry-After = %q, want about 720 (one hour-window token)", r.Header.Get("Retry-After"))
	}
	if !strings.Contains(string(r.Body), `"windowSeconds":3600`) || !strings.Contains(string(r.Body), `"limit":5`) {
		t.Fatalf("429 body = %s, want data naming 5 per 3600s", r.Body)
	}

	// Bob's own list: the minute window is the tighter one.
	h.runGlmcp(t, "users", "set-rate-limit", "bob", "2/60s,1000/1h")
	var last *response
	eventually(t, "bob's own list applies", func() bool {
		last = ping("bob")
		return last.Header.Get("RateLimit-Policy") == "2;w=60"
	})
	for n := 1; last.Status == http.StatusOK; n++ {
		if n > 2 {
			t.Fatalf("%d requests allowed under bob's own 2/60s,1000/1h", n)
		}
		last = ping("bob")
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("RateLimit-Policy") != "2;w=60" {
		t.Fatalf("bob refused: %d, headers %v", last.Status, last.Header)
	}
}

func TestRateLimit_configWindows(t *testing.T) {
	for _, bad := range []string{"600/60s,", "600/60s,10/1m", "600/60s,0/1h", "600/60s;5000/1h"} {
		cfg := app.Defaults()
		cfg.RateLimit = bad
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "GLMCP_RATE_LIMIT") || !strings.Contains(err.Error(), bad) {
			t.Fatalf("GLMCP_RATE_LIMIT=%q: Validate = %v, want an error naming the variable and the list", bad, err)
		}
	}
	cfg := app.Defaults()
	cfg.RateLimit = "600/60s,5000/1h"
	if err := cfg.Validate(); err != nil {
		t.Fatalf("GLMCP_RATE_LIMIT=600/60s,5000/1h: %v", err)
	}
}
