package spec

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ensure the per-user cap answers 429 and the instance cap 503, both with
// JSON-RPC error -31001 and a message naming the limit, and that closing a
// stream frees its slot.
func TestListen_caps(t *testing.T) {
	h := startServer(t, withStreamCaps(2, 3))
	a1 := h.listen(t, listenCall("", "alice", 1, toolsOnly()))
	h.listen(t, listenCall("", "alice", 2, map[string]any{})) // asking for nothing still holds a slot

	s, r := h.open(t, listenCall("", "alice", "third", toolsOnly()))
	if s != nil {
		t.Fatal("a third stream for alice opened, want 429")
	}
	msg, data := r.expectError(t, http.StatusTooManyRequests, -31001)
	if want := "Too many open listen streams for this user (limit 2)"; !strings.HasPrefix(msg, want) {
		t.Errorf("message = %q, want it to start with %q", msg, want)
	}
	if data != nil {
		t.Errorf("data = %v, want none", data)
	}
	expectErrorID(t, r, `"third"`)

	h.listen(t, listenCall("", "bob", 3, toolsOnly())) // the instance is now full
	s, r = h.open(t, listenCall("", "carol", 4, toolsOnly()))
	if s != nil {
		t.Fatal("a fourth stream on the instance opened, want 503")
	}
	msg, _ = r.expectError(t, http.StatusServiceUnavailable, -31001)
	if want := "Too many open listen streams on this server (limit 3)"; !strings.HasPrefix(msg, want) {
		t.Errorf("message = %q, want it to start with %q", msg, want)
	}
	if r.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	expectErrorID(t, r, "4")

	// Closing a stream frees its slot at once (the next request may race
	// the server noticing the close, hence the retries within the liveBound).
	a1.Close()
	var again *sseStream
	eventually(t, "alice's freed slot is reusable", func() bool {
		s, _ := h.open(t, listenCall("", "alice", 5, toolsOnly()))
		again = s
		return s != nil
	})
	expectAck(t, again, 5, true)
}

func expectErrorID(t *testing.T, r *response, want string) {
	t.Helper()
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	decodeJSONInto(t, r.Body, &env)
	if string(env.ID) != want {
		t.Errorf("error id = %s, want %s", env.ID, want)
	}
}

// Ensure a closed stream frees everything it held: its hub slot and every
// goroutine (client and server side run in this process, so the count
// returns to the baseline).
func TestListen_closeFreesEverything(t *testing.T) {
	h := startServer(t)
	// Warm up: one stream opened and closed, so lazily started goroutines
	// (listeners, pools) are part of the baseline.
	h.listen(t, listenCall("", "alice", 0, toolsOnly())).Close()
	eventually(t, "warm-up stream gone", func() bool { return h.Server.Hub().Len() == 0 })
	base := settledGoroutines()

	const n = 8
	streams := make([]*sseStream, 0, n)
	for i := range n {
		user := []string{"alice", "bob", "root", "carol"}[i%4]
		streams = append(streams, h.listen(t, listenCall("", user, i+1, toolsOnly())))
	}
	if got := h.Server.Hub().Len(); got != n {
		t.Fatalf("hub holds %d subscriptions, want %d", got, n)
	}
	// The count measures the streams: open ones hold goroutines, so
	// returning to the baseline below means they were released.
	if open := runtime.NumGoroutine(); open <= base {
		t.Fatalf("%d goroutines with %d streams open, baseline %d: the count does not see the streams", open, n, base)
	}
	h.publishChange("get_merge_request", "ce")
	for i, s := range streams {
		expectListChanged(t, s.nextMessage(t), i+1)
		s.Close()
	}
	eventually(t, "every subscription freed", func() bool { return h.Server.Hub().Len() == 0 })
	waitGoroutinesAtMost(t, base)
	for _, u := range []string{"alice", "bob", "root", "carol"} {
		if got := h.Server.Hub().LenForUser(listenUserID(t, h, u)); got != 0 {
			t.Errorf("%s still holds %d slots", u, got)
		}
	}
}

func listenUserID(t *testing.T, h *harness, username string) int64 {
	t.Helper()
	u, err := h.Env.Store.Users.FindUserByUsername(t.Context(), username)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// Ensure a client that stops reading cannot stall delivery to others: its
// stream's buffers fill up (its notifications carry a 768 KiB subscription
// id), every other listener keeps getting every change, and the stuck
// stream is cut off after the write timeout, freeing its slot while the
// client still holds the connection open.
func TestListen_slowReaderDoesNotStall(t *testing.T) {
	h := startServer(t, withKeepAlive(time.Second)) // write timeout: 10 s
	conn := stuckListener(t, h, strings.Repeat("x", 768<<10))
	defer conn.Close()
	eventually(t, "stuck listener registered", func() bool { return h.Server.Hub().Len() == 1 })

	fast := []*sseStream{
		h.listen(t, listenCall("", "alice", "f1", toolsOnly())),
		h.listen(t, listenCall("", "bob", "f2", toolsOnly())),
	}
	// Keep changing until the stuck stream is dropped: a few changes fill
	// its buffers, then its handler waits out the write timeout. Every
	// change meanwhile reaches the others.
	deadline := time.Now().Add(3 * liveBound)
	for i := 0; h.Server.Hub().Len() != 2; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the stuck stream still holds its slot after %v (hub holds %d)", 3*liveBound, h.Server.Hub().Len())
		}
		h.publishChange(fmt.Sprintf("tool_%d", i), "ce")
		for j, s := range fast {
			expectListChanged(t, s.nextMessage(t), []string{"f1", "f2"}[j])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := h.Server.Hub().LenForUser(listenUserID(t, h, "carol")); got != 0 {
		t.Errorf("carol still holds %d slots", got)
	}
}

// stuckListener opens a listen stream over a raw TCP connection with a
// tiny receive buffer, reads only the response headers, and never reads
// again.
func stuckListener(t *testing.T, h *harness, id string) net.Conn {
	t.Helper()
	u, err := url.Parse(h.CE)
	if err != nil {
		t.Fatal(err)
	}
	// The receive buffer is shrunk before connecting, so the advertised
	// window stays small and the kernel cannot absorb the stream.
	d := net.Dialer{Timeout: liveBound, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	body, hd := h.parts(t, listenCall("", "carol", id, toolsOnly()))
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", u.Path, u.Host, len(body))
	for k, v := range hd {
		req += k + ": " + v[0] + "\r\n"
	}
	if _, err := conn.Write([]byte(req + "\r\n" + body)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(liveBound))
	status, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("stuck listener: status line %q, %v", status, err)
	}
	return conn
}
