package spec

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// Failed authentications are budgeted per client address: once the budget
// is spent, requests carrying any credential from that address get 429
// before a token is looked up; requests that authenticate spend nothing.
func TestRateLimit_authFailures(t *testing.T) {
	h := startServer(t, func(c *app.Config) { c.AuthFailureLimit = "3/60s" })
	ping := envelope(t, 1, "ping", nil)
	good := auth(h.Tokens["alice"])

	for i := 0; i < 5; i++ { // successes spend nothing
		if r := h.send(t, call{Body: ping, Header: good}); r.Status != http.StatusOK {
			t.Fatalf("valid request %d: %d %s", i, r.Status, r.Body)
		}
	}
	// A well-formed token that is not stored: three failures are allowed.
	unknown := auth("glpat-" + "abcdefghijklmnopqrst")
	for i := 0; i < 3; i++ {
		if r := h.send(t, call{Body: ping, Header: unknown}); r.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401; %s", i+1, r.Status, r.Body)
		}
	}
	// The fourth attempt, and now even a valid token from this address,
	// is refused before any lookup, on both groups' shared budget.
	for _, hd := range []http.Header{unknown, good} {
		r := h.send(t, call{Body: ping, Header: hd})
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("after the budget: status %d, want 429; %s", r.Status, r.Body)
		}
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 20 {
			t.Errorf("Retry-After = %q, want 1..20 seconds", r.Header.Get("Retry-After"))
		}
		if code, _, _ := r.rpcError(t); code != -31029 {
			t.Errorf("code = %d, want -31029", code)
		}
		validateMessage(t, revModern, "JSONRPCErrorResponse", r.Body)
	}
	// Requests without a credential are not charged here (they have the
	// anonymous per-address limit) and still get the 401 challenge.
	if r := h.send(t, call{Body: ping}); r.Status != http.StatusUnauthorized {
		t.Fatalf("no credential: status %d, want 401", r.Status)
	}
}

// An Authorization header glmcp does not accept (Basic) is a credential
// that failed, read by the one credential rule both the rate limiter and
// authentication use: 401 saying Basic is not accepted, with the Bearer
// challenge; it spends the failed-auth budget (then 429, like a bad Bearer
// token) and never the anonymous per-address limit.
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
		if r.Header.Get("RateLimit-Limit") != "" {
			t.Errorf("failure %d: counted by the anonymous per-address limit (RateLimit-* headers)", i+1)
		}
	}
	for _, hd := range []http.Header{basic, auth("glpat-" + "abcdefghijklmnopqrst"), auth(h.Tokens["alice"])} {
		r := h.send(t, call{Body: ping, Header: hd})
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("after the budget (%v): status %d, want 429; %s", hd, r.Status, r.Body)
		}
		if code, _, _ := r.rpcError(t); code != -31029 {
			t.Errorf("code = %d, want -31029", code)
		}
	}
	// The anonymous budget was untouched: three requests without a
	// credential still reach authentication.
	for i := range 3 {
		if r := h.send(t, call{Body: ping}); r.Status != http.StatusUnauthorized {
			t.Fatalf("anonymous request %d: status %d, want 401", i+1, r.Status)
		}
	}
}
