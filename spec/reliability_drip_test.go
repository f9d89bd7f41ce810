package spec

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
)

// Slow anonymous bodies (issue #21, item 4): a request without a valid
// credential is answered 401 from its headers alone — before any body
// byte is read, so a client dripping its body gets its answer at once and
// the connection is closed — and one address cannot hold more than
// GLMCP_MAX_ADDRESS_REQUESTS authenticated bodies still arriving.

func withAddressBodyCap(perAddress int) option {
	return func(c *app.Config) { c.MaxAddressRequests = perAddress }
}

// relAnswerAndClose reads r's answer and then expects the server to close
// the connection (EOF, not more waiting for the body).
func relAnswerAndClose(t testing.TB, r *relSlowRequest) *response {
	t.Helper()
	res := r.response(t)
	_ = r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := r.conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the connection stays open after the %d (%d bytes read)", res.Status, n)
		} else if err == nil {
			t.Errorf("more bytes after the %d answer", res.Status)
		}
	}
	return res
}

func TestReliability_anonymousDripAnswered401(t *testing.T) {
	// A body deadline far past the bound, so a 408 cannot pass for the 401.
	h := startServer(t, withBodyLimits(30*time.Second, 32))
	cases := []struct {
		name, credential string
		want             string // in the 401 body
	}{
		{"no credential", "", `"message":"401 Unauthorized"`},
		{"an unknown token", "Authorization: Bearer glpat-" + strings.Repeat("x", 20) + "\r\n", `"error":"invalid_token"`},
		{"Basic", "Authorization: Basic YWxpY2U6c2VjcmV0\r\n", `Basic authentication is not accepted`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// 50 at once from one address, as in the issue; unknown
			// tokens spend failed authentications, so fewer of them stay
			// under the address's budget (30) and all get the 401.
			n := 50
			if tc.credential != "" {
				n = 10
			}
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					start := time.Now()
					r := relStartSlowWith(t, h, tc.credential, 4000, 10, true)
					res := relAnswerAndClose(t, r)
					// The bound: within 1 s (the drip would take
					// 13 minutes; a 2-core machine under load gets no
					// further slack than the bound itself).
					if d := time.Since(start); d > time.Second {
						t.Errorf("request %d: answered after %v, want within 1s", i, d)
					}
					if res.Status != http.StatusUnauthorized {
						t.Errorf("request %d: status %d, want 401: %s", i, res.Status, res.Body)
					}
					if !strings.Contains(string(res.Body), tc.want) {
						t.Errorf("request %d: body %s, want GitLab's %s", i, res.Body, tc.want)
					}
					if res.Header.Get("WWW-Authenticate") == "" {
						t.Errorf("request %d: 401 without a challenge", i)
					}
				})
			}
			wg.Wait()
		})
	}

	t.Run("an authenticated request still reads its body", func(t *testing.T) {
		h.send(t, call{User: "alice", Method: "tools/list"}).expectStatus(t, http.StatusOK)
	})
}

func TestReliability_openBodiesPerAddress(t *testing.T) {
	// The slow bodies hold their slots for the body timeout, 3 s: the
	// third request is tried until 2.5 s have passed (on a loaded 2-core
	// machine 1 s and 50 tries of 10 ms were once not enough to see the
	// slots taken before the timeout freed them).
	h := startServer(t, withBodyLimits(3*time.Second, 32), withAddressBodyCap(2))
	// Two users' slow bodies fill this address's two slots.
	slow := []*relSlowRequest{
		relStartSlow(t, h, h.Tokens["alice"], 500, 20, true),
		relStartSlow(t, h, h.Tokens["bob"], 500, 20, true),
	}
	var capped *response
	for tryUntil := time.Now().Add(2500 * time.Millisecond); time.Now().Before(tryUntil); { // both are authenticated and counted within moments
		if capped = h.send(t, call{User: "carol", Method: "tools/list"}); capped.Status == http.StatusTooManyRequests {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	msg, _ := capped.expectError(t, http.StatusTooManyRequests, -31029)
	if !strings.Contains(msg, "from this address") {
		t.Errorf("429 message %q does not name the address", msg)
	}
	if capped.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After")
	}
	for _, s := range slow {
		s.response(t).expectError(t, http.StatusRequestTimeout, -32600)
	}
	h.send(t, call{User: "carol", Method: "tools/list"}).expectStatus(t, http.StatusOK) // the slots are free again
}
