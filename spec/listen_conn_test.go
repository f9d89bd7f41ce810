package spec

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The listen streams of the other specs are HTTP/1.1, which glmcp serves
// on the connection it takes over from net/http once the headers are out
// (handlers/mcp/listen_raw.go). These cover the other ways a stream is
// served and ended: HTTP/2 (net/http keeps the stream), HTTP/1.0 (no
// chunked encoding: the body ends with the connection), a client that
// writes on its stream, and a real `glmcp serve` process shutting down.

// Ensure a listen stream over HTTP/2, where the connection cannot be
// taken over, is served the same way: acknowledgement, changes, a freed
// slot when the client closes, and the final result at shutdown.
func TestListen_http2(t *testing.T) {
	h := startServer(t)
	ts := httptest.NewUnstartedServer(h.Server.Handler())
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	client := ts.Client()
	client.Timeout = 0

	a := openVia(t, h, client, listenCall(ts.URL+cePath, "alice", "h2-a", toolsOnly()))
	b := openVia(t, h, client, listenCall(ts.URL+cePath, "bob", "h2-b", toolsOnly()))
	for _, s := range []*sseStream{a, b} {
		if s.Resp.ProtoMajor != 2 {
			t.Fatalf("stream served over %s, want HTTP/2", s.Resp.Proto)
		}
		checkStreamHeaders(t, s.Resp)
	}
	expectAck(t, a, "h2-a", true)
	expectAck(t, b, "h2-b", true)
	h.publishChange("get_merge_request", "ce")
	expectListChanged(t, a.nextMessage(t), "h2-a")
	expectListChanged(t, b.nextMessage(t), "h2-b")

	a.Close()
	eventually(t, "the closed HTTP/2 stream's slot freed", func() bool { return h.Server.Hub().Len() == 1 })
	h.Server.BeginShutdown()
	expectTranscript(t, b, "h2-b", 0)
}

// openVia is harness.open through client (which must answer with an event
// stream).
func openVia(t testing.TB, h *harness, client *http.Client, c call) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res, err := client.Do(h.request(t, ctx, c))
	if err != nil {
		cancel()
		t.Fatalf("%s: %v", c.Method, err)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		r := readAnswer(t, c, res)
		t.Fatalf("%s: status %d, want an event stream; body %s", c.Method, r.Status, r.Body)
	}
	return readStream(t, c, res, cancel)
}

// rawListen sends c as an HTTP/1.x request of version proto ("1.0",
// "1.1") on a connection of its own, and returns the connection and the
// response, whose body is the event stream.
func rawListen(t testing.TB, h *harness, proto string, c call) (net.Conn, *http.Response) {
	t.Helper()
	u, err := url.Parse(h.CE)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, liveBound)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	body, hd := h.parts(t, c)
	req := fmt.Sprintf("POST %s HTTP/%s\r\nHost: %s\r\nContent-Length: %d\r\n", u.Path, proto, u.Host, len(body))
	for k, v := range hd {
		req += k + ": " + v[0] + "\r\n"
	}
	if _, err := conn.Write([]byte(req + "\r\n" + body)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(3 * liveBound))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the response head: %v", err)
	}
	return conn, res
}

// streamOf reads res's body as the event stream of c.
func streamOf(t testing.TB, c call, res *http.Response) *sseStream {
	t.Helper()
	s := &sseStream{Resp: res, rev: c.rev(), method: c.method(), events: make(chan sseEvent, 64),
		quit: make(chan struct{}), done: make(chan struct{}), cancel: func() {}}
	go func() {
		defer close(s.done)
		defer close(s.events)
		s.err = readEvents(res.Body, func(ev sseEvent) bool {
			select {
			case s.events <- ev:
				return true
			case <-s.quit:
				return false
			}
		})
	}()
	t.Cleanup(s.Close)
	return s
}

// Ensure an HTTP/1.0 listen stream, which cannot be chunked, carries plain
// events ended by closing the connection after the final result, and an
// HTTP/1.1 one is chunked and ends with the last chunk.
func TestListen_http10AndChunking(t *testing.T) {
	h := startServer(t)
	c10 := listenCall("", "alice", "v10", toolsOnly())
	_, res10 := rawListen(t, h, "1.0", c10)
	c11 := listenCall("", "bob", "v11", toolsOnly())
	_, res11 := rawListen(t, h, "1.1", c11)
	if res10.StatusCode != http.StatusOK || res11.StatusCode != http.StatusOK {
		t.Fatalf("status %d (HTTP/1.0) and %d (HTTP/1.1), want 200", res10.StatusCode, res11.StatusCode)
	}
	if len(res10.TransferEncoding) != 0 || res10.ContentLength != -1 || !res10.Close {
		t.Errorf("HTTP/1.0 answer: Transfer-Encoding %v, Content-Length %d, close %v; want none, unknown, true",
			res10.TransferEncoding, res10.ContentLength, res10.Close)
	}
	if len(res11.TransferEncoding) != 1 || res11.TransferEncoding[0] != "chunked" {
		t.Errorf("HTTP/1.1 answer: Transfer-Encoding %v, want chunked", res11.TransferEncoding)
	}
	s10, s11 := streamOf(t, c10, res10), streamOf(t, c11, res11)
	checkStreamHeaders(t, res10)
	checkStreamHeaders(t, res11)
	expectAck(t, s10, "v10", true)
	expectAck(t, s11, "v11", true)
	h.publishChange("get_merge_request", "ce")
	h.Server.BeginShutdown()
	expectTranscript(t, s10, "v10", 1) // read to a clean end: the connection closed
	expectTranscript(t, s11, "v11", 1) // a clean end: the last chunk came
}

// Ensure a client that writes on its listen stream (a pipelined request:
// the stream never ends on its own to answer it) has the stream ended and
// its slot freed.
func TestListen_clientWritingEndsTheStream(t *testing.T) {
	h := startServer(t)
	c := listenCall("", "alice", "w", toolsOnly())
	conn, res := rawListen(t, h, "1.1", c)
	s := streamOf(t, c, res)
	expectAck(t, s, "w", true)
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the slot of the stream freed", func() bool { return h.Server.Hub().Len() == 0 })
	if _, ok := s.next(t); ok {
		t.Error("the stream goes on after the client wrote on it")
	}
}

// Ensure `glmcp serve` stopped by SIGINT sends every open listen stream its
// final result and ends it cleanly before it exits.
func TestListen_serveShutdownEndsStreams(t *testing.T) {
	h := startServer(t)
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	args := []string{"serve", "--secret", h.Cfg.Secret, "--log-level", "error",
		"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--public-url", base, "--rate-limit", "0"}
	if h.Env.Embedded {
		args = append(args, "--data-dir", h.Cfg.DataDir)
	} else {
		args = append(args, "--database-url", h.Cfg.DatabaseURL, "--repositories-path", h.Cfg.RepositoriesPath)
	}
	cmd := exec.Command(cliBinary(t), args...)
	cmd.Env = cliEnv()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	waitReady(t, base)

	remote := *h
	remote.CE = base + cePath
	streams := []*sseStream{
		remote.listen(t, listenCall("", "alice", "p1", toolsOnly())),
		remote.listen(t, listenCall("", "bob", 2, map[string]any{})),
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// The instance may announce a resync when its own LISTEN comes up, so
	// list_changed may come first; the final result must end each stream.
	for i, id := range []any{"p1", 2} {
		msgs := streams[i].rest(t)
		if len(msgs) == 0 {
			t.Fatalf("stream %v ended without its final result", id)
		}
		for _, m := range msgs[:len(msgs)-1] {
			expectListChanged(t, m, id)
		}
		expectFinal(t, msgs[len(msgs)-1], id)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("glmcp serve exited with %v after SIGINT", waitErr)
		}
	case <-time.After(3 * liveBound):
		t.Fatal("glmcp serve still running after SIGINT")
	}
}
