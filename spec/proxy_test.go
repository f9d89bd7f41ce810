package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Behind a reverse proxy (doc/endpoint.md, "Behind a reverse proxy"): every
// answer — JSON, a streamed tools/call, a listen stream on its hijacked
// connection — arrives whole and framed exactly, through an
// httputil.ReverseProxy like the conformance runner's token proxy, on
// connections kept alive and reused on both legs.

// proxyClientTimeout is how long the client of these specs waits for one
// whole answer: the conformance suite's is 30 s per scenario.
const proxyClientTimeout = 10 * time.Second

// startTokenProxy starts the conformance runner's proxy in front of
// upstream: an httputil.ReverseProxy that adds token as a Bearer
// credential and flushes every write. With buffered, the request body is
// read whole before it is forwarded (bufferRequestBody); without, the
// inbound body is forwarded as it is. slowBody, when not nil, wraps the
// body the proxy forwards (the copy, or the inbound body).
func startTokenProxy(t testing.TB, upstream, token string, buffered bool, slowBody func(io.ReadCloser) io.ReadCloser) *httptest.Server {
	t.Helper()
	up, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Header.Set("Authorization", "Bearer "+token)
			if slowBody != nil && pr.Out.Body != nil && pr.Out.Body != http.NoBody {
				pr.Out.Body = slowBody(pr.Out.Body)
			}
		},
		// The unbuffered proxy's "read error during body copy" is what
		// TestProxy_unbufferedRequestBodyCutsStreams expects.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	var h http.Handler = rp
	if buffered {
		h = bufferRequestBody(rp)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// bufferRequestBody reads a request's body whole before next forwards it,
// as nginx does (proxy_request_buffering on): the upstream is sent an
// in-memory copy, and nothing reads the inbound body once the answer is
// on its way back (see TestProxy_unbufferedRequestBodyCutsStreams).
func bufferRequestBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
			r.ContentLength = int64(len(b))
		}
		next.ServeHTTP(w, r)
	})
}

// rawConn is one client connection, kept alive across exchanges and read
// with net/http's strict HTTP/1.1 response parser.
type rawConn struct {
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t testing.TB, base string) *rawConn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", u.Host, proxyClientTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{c: c, br: bufio.NewReader(c)}
}

// exchange writes req and reads its whole answer within
// proxyClientTimeout. A chunked body must end with its last chunk, a
// Content-Length body must be exactly that long, and nothing may follow
// the answer on the connection.
func (rc *rawConn) exchange(req *http.Request) (*http.Response, []byte, error) {
	_ = rc.c.SetDeadline(time.Now().Add(proxyClientTimeout))
	if err := req.Write(rc.c); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", req.Method, err)
	}
	res, err := http.ReadResponse(rc.br, req)
	if err != nil {
		return nil, nil, fmt.Errorf("read the answer's head: %w", err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return res, body, fmt.Errorf("read the answer's body (%d bytes read): %w", len(body), err)
	}
	if n := rc.br.Buffered(); n > 0 {
		extra, _ := rc.br.Peek(n)
		return res, body, fmt.Errorf("%d bytes follow the answer on the connection: %q", n, extra)
	}
	return res, body, nil
}

// checkJSONFraming asserts a whole JSON answer: Content-Length equal to
// the body, no chunking, the connection kept.
func checkJSONFraming(res *http.Response, body []byte, status int) error {
	switch {
	case res.StatusCode != status:
		return fmt.Errorf("status %d, want %d: %s", res.StatusCode, status, body)
	case len(res.TransferEncoding) != 0:
		return fmt.Errorf("Transfer-Encoding %v on a JSON answer, want Content-Length", res.TransferEncoding)
	case res.Header.Get("Content-Length") == "" || res.ContentLength != int64(len(body)):
		return fmt.Errorf("Content-Length %q, body %d bytes", res.Header.Get("Content-Length"), len(body))
	case res.Close:
		return errors.New("the connection is closed after the answer, want it kept alive")
	}
	return nil
}

// streamMessages asserts an event-stream answer framed as chunks, ended by
// the last chunk on a kept connection, and returns its messages.
func streamMessages(res *http.Response, body []byte) ([][]byte, error) {
	switch {
	case res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream":
		return nil, fmt.Errorf("status %d Content-Type %q, want a 200 event stream: %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	case len(res.TransferEncoding) != 1 || res.TransferEncoding[0] != "chunked" || res.ContentLength != -1:
		return nil, fmt.Errorf("Transfer-Encoding %v Content-Length %d, want chunked only", res.TransferEncoding, res.ContentLength)
	case res.Close:
		return nil, errors.New("the connection is closed after the stream, want it kept alive")
	}
	var msgs [][]byte
	err := readEvents(bytes.NewReader(body), func(ev sseEvent) bool {
		if !ev.IsComment {
			msgs = append(msgs, ev.Data)
		}
		return true
	})
	if err != io.EOF {
		return nil, fmt.Errorf("event stream: %v", err)
	}
	if len(body) > 0 && !bytes.HasSuffix(body, []byte("\n\n")) {
		return nil, fmt.Errorf("event stream ends inside an event: %q", body[max(0, len(body)-40):])
	}
	return msgs, nil
}

// methodsOf returns each message's method ("" for the response) and checks
// that the last one is the response to id.
func methodsOf(msgs [][]byte, id string) ([]string, error) {
	var out []string
	for i, m := range msgs {
		var env struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(m, &env); err != nil {
			return nil, fmt.Errorf("message %d is not JSON: %v: %s", i, err, m)
		}
		if i == len(msgs)-1 && (string(env.ID) != id || env.Result == nil) {
			return nil, fmt.Errorf("last message %s, want the result for id %s", m, id)
		}
		out = append(out, env.Method)
	}
	return out, nil
}

// proxyRound is one round of what the conformance scenarios that stalled
// send: the Legacy handshake, the GET the suite tries first (405), the two
// streamed fixtures (log messages, progress), and on the Modern wire a
// tools/list whose answer is large (EE) and a plain tools/call. All on rc,
// one after the other. token is sent when not "" (the direct leg).
func proxyRound(t testing.TB, h *harness, rc *rawConn, base, token string, round int) error {
	ce, ee := base+cePath, base+eePath
	req := func(c call) *http.Request {
		r := h.request(t, context.Background(), c)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	id := func(k int) string { return fmt.Sprint(round*100 + k) }
	steps := []struct {
		name  string
		req   *http.Request
		check func(*http.Response, []byte) error
	}{
		{"initialize", req(call{URL: ce, ID: round*100 + 1, Method: "initialize", Params: confInitParams(rev20251125)}),
			func(res *http.Response, b []byte) error { return checkJSONFraming(res, b, http.StatusOK) }},
		{"notifications/initialized", req(call{URL: ce, Notify: true, Method: "notifications/initialized", Header: http.Header{"Mcp-Protocol-Version": {rev20251125}}}),
			func(res *http.Response, b []byte) error { return checkJSONFraming(res, b, http.StatusAccepted) }},
		{"GET", req(call{URL: ce, Verb: http.MethodGet, Header: http.Header{"Accept": {"text/event-stream"}}}),
			func(res *http.Response, b []byte) error { return checkJSONFraming(res, b, http.StatusMethodNotAllowed) }},
		{"tools/call test_tool_with_logging", req(call{URL: ce, ID: round*100 + 4, Method: "tools/call",
			Params: map[string]any{"name": "test_tool_with_logging", "arguments": map[string]any{}}, Header: http.Header{"Mcp-Protocol-Version": {rev20251125}}}),
			func(res *http.Response, b []byte) error {
				msgs, err := streamMessages(res, b)
				if err != nil {
					return err
				}
				methods, err := methodsOf(msgs, id(4))
				if err == nil && strings.Join(methods, ",") != "notifications/message,notifications/message,notifications/message," {
					err = fmt.Errorf("messages %q, want three log messages and the result", methods)
				}
				return err
			}},
		{"tools/call test_tool_with_progress", req(call{URL: ce, ID: round*100 + 5, Method: "tools/call",
			Params: map[string]any{"name": "test_tool_with_progress", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "p"}},
			Header: http.Header{"Mcp-Protocol-Version": {rev20251125}}}),
			func(res *http.Response, b []byte) error {
				msgs, err := streamMessages(res, b)
				if err != nil {
					return err
				}
				methods, err := methodsOf(msgs, id(5))
				if err == nil && strings.Join(methods, ",") != "notifications/progress,notifications/progress,notifications/progress," {
					err = fmt.Errorf("messages %q, want three progress notifications and the result", methods)
				}
				return err
			}},
		{"tools/list (EE)", req(call{Era: modern, URL: ee, ID: round*100 + 6, Method: "tools/list", Params: map[string]any{}}),
			func(res *http.Response, b []byte) error {
				if err := checkJSONFraming(res, b, http.StatusOK); err != nil {
					return err
				}
				if len(b) < 32<<10 {
					return fmt.Errorf("tools/list answered %d bytes, want the large catalog (≥ 32 KiB)", len(b))
				}
				_, err := methodsOf([][]byte{b}, id(6))
				return err
			}},
		{"tools/call test_simple_text", req(call{Era: modern, URL: ce, ID: round*100 + 7, Method: "tools/call",
			Params: map[string]any{"name": "test_simple_text", "arguments": map[string]any{}}}),
			func(res *http.Response, b []byte) error {
				if err := checkJSONFraming(res, b, http.StatusOK); err != nil {
					return err
				}
				_, err := methodsOf([][]byte{b}, id(7))
				return err
			}},
	}
	for _, s := range steps {
		res, body, err := rc.exchange(s.req)
		if err == nil {
			err = s.check(res, body)
		}
		if err != nil {
			return fmt.Errorf("round %d, %s: %w", round, s.name, err)
		}
	}
	return nil
}

// Ensure every answer reaches a client whole and framed exactly, straight
// from glmcp and through a reverse proxy: JSON with its exact
// Content-Length, event streams (log messages, progress) chunked and ended
// by the last chunk, on connections kept alive and reused — the exchanges
// of the conformance scenarios that stalled behind the token proxy.
// Several clients at once, many rounds each: a race between glmcp's
// answer and the proxy's handling of the request would cut one.
func TestProxy_answersArriveWholeAndFramed(t *testing.T) {
	h := startServer(t, withEE(), withConformanceFixtures())
	token := h.Tokens["alice"]
	proxy := startTokenProxy(t, h.URL, token, true, nil)
	const clients, rounds = 4, 12
	for _, leg := range []struct {
		name, base, token string
	}{
		{"direct", h.URL, token},
		{"through httputil.ReverseProxy", proxy.URL, ""},
	} {
		t.Run(leg.name, func(t *testing.T) {
			errs := make(chan error, clients)
			var wg sync.WaitGroup
			for range clients {
				rc := dialRaw(t, leg.base)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := 1; r <= rounds; r++ {
						if err := proxyRound(t, h, rc, leg.base, leg.token, r); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// Ensure a listen stream, which glmcp serves on its hijacked connection,
// goes to a client event by event, straight and through a reverse proxy:
// the acknowledgement at once, a change as it happens, keep-alive
// comments, and at shutdown the final result followed by the last chunk —
// so a proxy ends its answer cleanly instead of waiting for more. Straight
// from glmcp the head says Connection: close, and the connection does
// close after the last chunk: a proxy keeping connections alive must not
// reuse it.
func TestProxy_listenStreamEndsCleanly(t *testing.T) {
	t.Run("direct", func(t *testing.T) {
		h := startServer(t, withKeepAlive(time.Second))
		listenThrough(t, h, h.URL, h.Tokens["alice"], true)
	})
	t.Run("through httputil.ReverseProxy", func(t *testing.T) {
		h := startServer(t, withKeepAlive(time.Second))
		proxy := startTokenProxy(t, h.URL, h.Tokens["alice"], true, nil)
		listenThrough(t, h, proxy.URL, "", false)
	})
}

// listenThrough opens a listen stream at base (a proxy in front of h; the
// token is sent when not "") and checks that each event arrives as it is
// sent: the acknowledgement before anything else happens, a change
// published after it, a keep-alive comment (h's keep-alive must be short),
// and — after h begins its shutdown — the final result and then the
// stream's clean end. Nothing but the client timeout bounds a step. With
// direct (base is h itself), the head must say Connection: close and the
// connection must close after the last chunk.
func listenThrough(t *testing.T, h *harness, base, token string, direct bool) {
	t.Helper()
	rc := dialRaw(t, base)
	req := h.request(t, context.Background(), listenCall(base+cePath, "", 7, toolsOnly()))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	_ = rc.c.SetDeadline(time.Now().Add(proxyClientTimeout))
	if err := req.Write(rc.c); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(rc.br, req)
	if err != nil {
		t.Fatalf("listen stream head: %v", err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("status %d Content-Type %q, want a 200 event stream", res.StatusCode, ct)
	}
	if len(res.TransferEncoding) != 1 || res.TransferEncoding[0] != "chunked" || res.ContentLength != -1 {
		t.Fatalf("Transfer-Encoding %v Content-Length %d, want chunked only", res.TransferEncoding, res.ContentLength)
	}
	if direct && !res.Close {
		t.Errorf("listen stream head without Connection: close (headers %v): glmcp closes the connection when the stream ends", res.Header)
	}
	_ = rc.c.SetDeadline(time.Time{}) // each step below has its own bound
	events := make(chan sseEvent, 16)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readEvents(res.Body, func(ev sseEvent) bool { events <- ev; return true })
		close(events)
	}()
	next := func(what string) sseEvent {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream ended (%v), want %s", <-readErr, what)
			}
			return ev
		case <-time.After(proxyClientTimeout):
			t.Fatalf("no %s through the proxy within %v", what, proxyClientTimeout)
		}
		return sseEvent{}
	}
	nextMessage := func(what string) []byte {
		t.Helper()
		for {
			if ev := next(what); !ev.IsComment {
				return ev.Data
			}
		}
	}
	if m := confMethod(t, nextMessage("acknowledgement")); m != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %q, want the acknowledgement", m)
	}
	h.publishChange("get_merge_request", "ce")
	expectListChanged(t, nextMessage("tools/list_changed"), 7)
	if ev := next("keep-alive comment"); !ev.IsComment {
		t.Fatalf("event %s, want a keep-alive comment", ev.Data)
	}
	h.Server.BeginShutdown()
	expectFinal(t, nextMessage("final result"), 7)
	select {
	case _, ok := <-events:
		if ok {
			t.Fatal("an event after the final result")
		}
	case <-time.After(proxyClientTimeout):
		t.Fatalf("the stream did not end within %v of the final result: the last chunk did not get through", proxyClientTimeout)
	}
	if err := <-readErr; err != io.EOF {
		t.Fatalf("stream ended with %v, want the last chunk (a clean EOF)", err)
	}
	if direct {
		_ = rc.c.SetReadDeadline(time.Now().Add(proxyClientTimeout))
		if n, err := rc.br.ReadByte(); err != io.EOF {
			t.Fatalf("after the last chunk the connection gave %q, %v; want it closed (EOF)", n, err)
		}
	}
}

// Ensure the compose scale profile's nginx (deploy/nginx/glmcp.conf, run
// as startNginx does) holds nothing back and cuts nothing: the exchanges
// of TestProxy_answersArriveWholeAndFramed arrive whole and framed on
// kept-alive connections, and a listen stream, glmcp's longest answer,
// arrives event by event and ends cleanly. nginx's upstreams are three
// entries for the one server.
func TestProxy_throughNginx(t *testing.T) {
	h := startServer(t, withEE(), withConformanceFixtures(), withKeepAlive(time.Second))
	in := &instance{base: h.URL}
	addr := startNginx(t, []*instance{in, in, in})
	base, token := "http://"+addr, h.Tokens["alice"]
	t.Run("exchanges", func(t *testing.T) {
		const clients, rounds = 2, 6
		errs := make(chan error, clients)
		var wg sync.WaitGroup
		for range clients {
			rc := dialRaw(t, base)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 1; r <= rounds; r++ {
					if err := proxyRound(t, h, rc, base, token, r); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	t.Run("listen stream", func(t *testing.T) { listenThrough(t, h, base, token, false) })
}

// lateReadBody is a request body whose reads after its end wait for
// proceed: it holds the proxy's transport at the read it makes, having
// sent the body, to check that nothing follows it — the moment a loaded
// machine's scheduler may put anywhere.
type lateReadBody struct {
	io.ReadCloser
	ended   bool
	proceed <-chan struct{}
}

func (b *lateReadBody) Read(p []byte) (int, error) {
	if b.ended {
		select {
		case <-b.proceed:
		case <-time.After(proxyClientTimeout):
		}
	}
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.ended = true
	}
	return n, err
}

// Ensure the cause of the stall behind the conformance runner's proxy
// stays what doc/endpoint.md says: an httputil.ReverseProxy that forwards
// the inbound request body as it is cuts a streamed answer when its
// transport reads that body once more after the answer's head went back
// to the client (net/http has closed the inbound body by then, the read
// fails, and the transport closes the upstream connection mid-answer);
// read whole first, the same timing does no harm. glmcp's answer is the
// same in both: the defect, and the fix, are the proxy's.
func TestProxy_unbufferedRequestBodyCutsStreams(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	for _, tc := range []struct {
		name     string
		buffered bool
	}{
		{"unbuffered: the answer is cut", false},
		{"buffered: the answer is whole", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proceed := make(chan struct{})
			var once sync.Once
			release := func() { once.Do(func() { close(proceed) }) }
			defer release()
			proxy := startTokenProxy(t, h.URL, h.Tokens["alice"], tc.buffered, func(b io.ReadCloser) io.ReadCloser {
				return &lateReadBody{ReadCloser: b, proceed: proceed}
			})
			rc := dialRaw(t, proxy.URL)
			req := h.request(t, context.Background(), call{URL: proxy.URL + cePath, ID: 4, Method: "tools/call",
				Params: map[string]any{"name": "test_tool_with_logging", "arguments": map[string]any{}},
				Header: http.Header{"Mcp-Protocol-Version": {rev20251125}}})
			_ = rc.c.SetDeadline(time.Now().Add(proxyClientTimeout))
			if err := req.Write(rc.c); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(rc.br, req)
			if err != nil {
				t.Fatalf("answer's head: %v", err)
			}
			release() // the head is back: the transport's late read may go on
			body, err := io.ReadAll(res.Body)
			if !tc.buffered {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unbuffered proxy: body read ended with %v after %d bytes, want it cut (unexpected EOF); "+
						"if net/http no longer closes the inbound body under the proxy, update doc/endpoint.md", err, len(body))
				}
				return
			}
			if err != nil {
				t.Fatalf("buffered proxy: body read: %v after %d bytes, want the whole stream", err, len(body))
			}
			msgs, err := streamMessages(res, body)
			if err == nil {
				_, err = methodsOf(msgs, "4")
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 4 {
				t.Fatalf("%d messages, want three log messages and the result", len(msgs))
			}
		})
	}
}
