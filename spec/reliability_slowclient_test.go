package spec

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

// Slow clients (issue #13, item 5): a client that drips its body, or
// announces a longer Content-Length than it sends, gets 408 once the body
// deadline passes; one user cannot hold more than GLMCP_MAX_USER_REQUESTS
// such requests; and the deadline never cuts a listen stream.

func withBodyLimits(timeout time.Duration, perUser int) option {
	return func(c *app.Config) { c.BodyTimeout, c.MaxUserRequests = timeout, perUser }
}

// relSlowRequest is a raw HTTP/1.1 request on its own connection whose
// body arrives slowly or never completes.
type relSlowRequest struct {
	conn net.Conn
	stop chan struct{}
}

// relStartSlow sends the head of a POST announcing length body bytes, then
// sends sent bytes of body; with drip set it goes on sending one byte every
// 200ms (never reaching length within the spec).
func relStartSlow(t testing.TB, h *harness, token string, length, sent int, drip bool) *relSlowRequest {
	t.Helper()
	return relStartSlowWith(t, h, "Authorization: Bearer "+token+"\r\n", length, sent, drip)
}

// relStartSlowWith is relStartSlow with the credential's header lines as
// given (none: "").
func relStartSlowWith(t testing.TB, h *harness, credential string, length, sent int, drip bool) *relSlowRequest {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	r := &relSlowRequest{conn: conn, stop: make(chan struct{})}
	t.Cleanup(func() { r.close() })
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", cePath, strings.TrimPrefix(h.URL, "http://"), credential, length)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}` + strings.Repeat(" ", length)
	if _, err := io.WriteString(conn, head+body[:sent]); err != nil {
		t.Fatal(err)
	}
	if drip {
		go func() {
			for i := sent; i < length; i++ {
				select {
				case <-r.stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
				if _, err := conn.Write([]byte{body[i]}); err != nil {
					return
				}
			}
		}()
	}
	return r
}

// response reads the answer (bounded: a server that never answers fails
// the spec instead of hanging it).
func (r *relSlowRequest) response(t testing.TB) *response {
	t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(r.conn), nil)
	if err != nil {
		t.Fatalf("no answer to a slow request: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func (r *relSlowRequest) close() {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	_ = r.conn.Close()
}

func TestReliability_slowClients(t *testing.T) {
	h := startServer(t, withBodyLimits(time.Second, 2), withKeepAlive(time.Second))
	list := func(user string) *response { return h.send(t, call{User: user, Method: "tools/list"}) }

	t.Run("a dripping body: 408", func(t *testing.T) {
		r := relStartSlow(t, h, h.Tokens["alice"], 500, 20, true)
		res := r.response(t)
		res.expectError(t, http.StatusRequestTimeout, -32600)
	})

	t.Run("a Content-Length longer than the body: 408", func(t *testing.T) {
		r := relStartSlow(t, h, h.Tokens["alice"], 500, 40, false)
		r.response(t).expectError(t, http.StatusRequestTimeout, -32600)
	})

	t.Run("a body cut short: 400", func(t *testing.T) {
		r := relStartSlow(t, h, h.Tokens["alice"], 500, 40, false)
		_ = r.conn.(*net.TCPConn).CloseWrite()
		r.response(t).expectError(t, http.StatusBadRequest, -32600)
	})

	t.Run("open requests per user are capped", func(t *testing.T) {
		slow := []*relSlowRequest{
			relStartSlow(t, h, h.Tokens["carol"], 500, 20, true),
			relStartSlow(t, h, h.Tokens["carol"], 500, 20, true),
		}
		// Both slow requests are authenticated and counted within moments;
		// the cap holds until their deadline.
		var capped *response
		for range 50 {
			if capped = list("carol"); capped.Status == http.StatusTooManyRequests {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		capped.expectError(t, http.StatusTooManyRequests, -31029)
		if capped.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
		list("bob").expectStatus(t, http.StatusOK) // other users are not affected
		for _, s := range slow {
			s.response(t).expectError(t, http.StatusRequestTimeout, -32600)
		}
		list("carol").expectStatus(t, http.StatusOK) // the slots are free again
	})

	t.Run("a listen stream outlives the body deadline", func(t *testing.T) {
		s := h.listen(t, listenCall("", "alice", "slow-listen", toolsOnly()))
		defer s.Close()
		time.Sleep(2500 * time.Millisecond) // past the 1s body deadline, twice
		h.publishChange("get_merge_request", models.EditionCE)
		expectListChanged(t, s.nextMessage(t), "slow-listen")
	})
}
