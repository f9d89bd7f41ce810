package spec

import (
	"net/http"
	"strconv"
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
