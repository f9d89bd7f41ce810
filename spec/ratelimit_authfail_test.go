package spec

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// expectFailureHeaders asserts the RateLimit-* headers of the address's
// failed-authentication budget, the limit that applies to a credential
// that is not accepted: limit failures per minute, remaining left.
func expectFailureHeaders(t *testing.T, r *response, limit, remaining int) {
	t.Helper()
	for name, want := range map[string]string{
		"RateLimit-Limit":     strconv.Itoa(limit),
		"RateLimit-Remaining": strconv.Itoa(remaining),
		"RateLimit-Policy":    strconv.Itoa(limit) + ";w=60",
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("%d answer: %s = %q, want %q", r.Status, name, got, want)
		}
	}
	// Full again 60/limit seconds after each failure spent.
	spent := limit - remaining
	if n, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil || n < 0 || n > spent*60/limit {
		t.Errorf("%d answer: RateLimit-Reset = %q, want whole seconds in 0..%d", r.Status, r.Header.Get("RateLimit-Reset"), spent*60/limit)
	}
}

// Failed authentications are budgeted per client address: once the budget
// is spent, requests carrying any credential from that address get 429
// before a token is looked up; requests that authenticate spend nothing.
// Every answer to a credential that is not accepted (401, 403, the 429)
// carries that budget's RateLimit-* headers.
func TestRateLimit_authFailures(t *testing.T) {
	h := startServer(t, withEE(), withRateLimit("600/60s"), func(c *app.Config) { c.AuthFailureLimit = "3/60s" })
	ping := envelope(t, 1, "ping", nil)
	good := auth(h.Tokens["alice"])

	for i := 0; i < 5; i++ { // successes spend nothing
		r := h.send(t, call{Body: ping, Header: good})
		if r.Status != http.StatusOK {
			t.Fatalf("valid request %d: %d %s", i, r.Status, r.Body)
		}
		if got := r.Header.Get("RateLimit-Policy"); got != "600;w=60" {
			t.Errorf("valid request %d: RateLimit-Policy = %q, want the user's 600;w=60", i, got)
		}
	}
	// A valid token refused on Orbit (bob has no EE seat): 403, the
	// budget's headers, nothing spent.
	for range 2 {
		r := h.send(t, call{URL: h.EE, Body: ping, Header: auth(h.Tokens["bob"])})
		expect403User(t, r, "GitLab Orbit MCP server requires a GitLab Duo Enterprise seat; ask an administrator to assign one to your account.")
		expectFailureHeaders(t, r, 3, 3)
	}
	// A well-formed token that is not stored: three failures are allowed.
	unknown := auth("glpat-" + "abcdefghijklmnopqrst")
	for i := 0; i < 3; i++ {
		r := h.send(t, call{Body: ping, Header: unknown})
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401; %s", i+1, r.Status, r.Body)
		}
		expectFailureHeaders(t, r, 3, 2-i)
	}
	// The fourth attempt, and now even a valid token from this address,
	// is refused before any lookup, on both groups' shared budget.
	for _, hd := range []http.Header{unknown, good} {
		r := h.send(t, call{Body: ping, Header: hd})
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("after the budget: status %d, want 429; %s", r.Status, r.Body)
		}
		expectFailureHeaders(t, r, 3, 0)
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 20 {
			t.Errorf("Retry-After = %q, want 1..20 seconds", r.Header.Get("Retry-After"))
		}
		if code, _, _ := r.rpcError(t); code != -31029 {
			t.Errorf("code = %d, want -31029", code)
		}
		validateMessage(t, revModern, "JSONRPCErrorResponse", r.Body)
	}
	// Requests without a credential are not charged here (they have the
	// anonymous per-address limit, whose headers they carry) and still get
	// the 401 challenge.
	r := h.send(t, call{Body: ping})
	if r.Status != http.StatusUnauthorized {
		t.Fatalf("no credential: status %d, want 401", r.Status)
	}
	if got := r.Header.Get("RateLimit-Policy"); got != "600;w=60" {
		t.Errorf("no credential: RateLimit-Policy = %q, want the address's 600;w=60", got)
	}
}

// An Authorization header glmcp does not accept (Basic) is a credential
// that failed, read by the one credential rule both the rate limiter and
// authentication use: 401 saying Basic is not accepted, with the Bearer
// challenge; it spends the failed-auth budget (then 429, like a bad Bearer
// token), whose RateLimit-* headers it carries, and never the anonymous
// per-address limit.
func TestRateLimit_basicSpendsTheFailureBudget(t *testing.T) {
	h := startServer(t, withRateLimit("3/60s"), func(c *app.Config) { c.AuthFailureLimit = "2/60s" })
	ping := envelope(t, 1, "ping", nil)
	basic := http.Header{"Authorization": {"Basic YWxpY2U6c2VjcmV0"}}
	for i := range 2 {
		r := h.send(t, call{Body: ping, Header: basic})
		r.expectStatus(t, http.StatusUnauthorized)
		if got, want := r.Header.Get("WWW-Authenticate"), `Bearer realm="GitLab"`; got != want {
			t.Errorf("WWW-Authenticate = %q, want %q", got, want)
		}
		var body struct{ Message, Hint string }
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(body.Message, "401 Unauthorized - Basic authentication is not accepted.") {
			t.Errorf("failure %d: message %q, want it to say Basic is not accepted", i+1, body.Message)
		}
		expectFailureHeaders(t, r, 2, 1-i) // not the anonymous 3/60s
	}
	for _, hd := range []http.Header{basic, auth("glpat-" + "abcdefghijklmnopqrst"), auth(h.Tokens["alice"])} {
		r := h.send(t, call{Body: ping, Header: hd})
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("after the budget (%v): status %d, want 429; %s", hd, r.Status, r.Body)
		}
		if code, _, _ := r.rpcError(t); code != -31029 {
			t.Errorf("code = %d, want -31029", code)
		}
		expectFailureHeaders(t, r, 2, 0)
	}
	// The anonymous budget was untouched: three requests without a
	// credential still reach authentication.
	for i := range 3 {
		if r := h.send(t, call{Body: ping}); r.Status != http.StatusUnauthorized {
			t.Fatalf("anonymous request %d: status %d, want 401", i+1, r.Status)
		}
	}
}
