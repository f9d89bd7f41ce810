package spec

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// benchStreams is the number of open listen streams in BenchmarkListen2000.
const benchStreams = 2000

// BenchmarkListen2000 opens 2,000 subscriptions/listen streams over real
// HTTP on loopback against one instance, then measures, per operation, the
// time from publishing one tool change until every stream has received its
// notifications/tools/list_changed.
//
//   - hub: the change is published to the instance's hub (how a change
//     reaches the streams once the instance has learned of it).
//   - notify: the change is sent with pg_notify from another connection, as
//     the CLI does, and travels LISTEN → hub → streams (PostgreSQL only).
//
// Extra metrics, measured once with every stream open and acknowledged:
// heap-B/stream (HeapInuse delta), stack-B/stream (StackInuse delta) and
// goroutines/stream. Client and server share this process, so they include
// the client side: one goroutine, one connection and a 4 KiB read buffer
// per stream.
//
//	go test ./spec/ -run '^$' -bench BenchmarkListen2000 -benchtime 20x
func BenchmarkListen2000(b *testing.B) {
	raiseFileLimit(b, 4*benchStreams+512)
	b.Run("hub", func(b *testing.B) {
		h := startServer(b, withStreamCaps(benchStreams, benchStreams))
		benchListen(b, h, benchStreams, func() {
			h.Server.Hub().Publish(subscriptions.Event{Kind: subscriptions.KindTools, Tool: "get_merge_request", Edition: models.EditionCE})
		})
	})
	b.Run("notify", func(b *testing.B) {
		h := startServer(b, withStreamCaps(benchStreams, benchStreams))
		if h.Env.Embedded {
			b.Skip("needs PostgreSQL (set GLMCP_TEST_DATABASE_URL)")
		}
		db, err := sql.Open("pgx", h.Cfg.DatabaseURL)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		pub := subscriptions.NewPGPublisher(db)
		ev := subscriptions.Event{Kind: subscriptions.KindTools, Tool: "get_merge_request", Edition: models.EditionCE}
		benchListen(b, h, benchStreams, func() {
			if err := pub.Publish(context.Background(), ev); err != nil {
				b.Fatal(err)
			}
		})
	})
}

func benchListen(b *testing.B, h *harness, n int, publish func()) {
	token := h.Tokens["alice"]
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()

	got := make(chan struct{}, n)
	streams := openRawListeners(b, h, token, n, got)
	defer func() {
		for _, c := range streams {
			_ = c.Close()
		}
	}()
	if n := h.Server.Hub().Len(); n != n {
		b.Fatalf("hub holds %d streams, want %d", n, n)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	g1 := runtime.NumGoroutine()

	for b.Loop() {
		publish()
		deadline := time.After(liveBound)
		for range n {
			select {
			case <-got:
			case <-deadline:
				b.Fatalf("not every stream got the change within %v", liveBound)
			}
		}
	}
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/float64(n), "heap-B/stream")
	b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/float64(n), "stack-B/stream")
	b.ReportMetric(float64(g1-g0)/float64(n), "goroutines/stream")
}

// openRawListeners opens n listen streams with a lean raw-HTTP client (one
// connection and one goroutine each), waits for every acknowledgement, and
// then signals got once per list_changed received on any stream.
func openRawListeners(b *testing.B, h *harness, token string, n int, got chan<- struct{}) []net.Conn {
	b.Helper()
	u, err := url.Parse(h.CE)
	if err != nil {
		b.Fatal(err)
	}
	conns := make([]net.Conn, n)
	acked := make(chan error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range n {
		c := listenCall("", "", i, toolsOnly())
		c.Token = token
		body, hd := h.parts(b, c)
		req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", u.Path, u.Host, len(body))
		for k, v := range hd {
			req += k + ": " + v[0] + "\r\n"
		}
		req += "\r\n" + body
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.DialTimeout("tcp", u.Host, liveBound)
			if err != nil {
				acked <- err
				return
			}
			conns[i] = c
			if _, err := c.Write([]byte(req)); err != nil {
				acked <- err
				return
			}
			go readRawStream(c, acked, got)
		}()
	}
	wg.Wait()
	deadline := time.After(3 * liveBound)
	for range n {
		select {
		case err := <-acked:
			if err != nil {
				b.Fatalf("open listen stream: %v", err)
			}
		case <-deadline:
			b.Fatalf("not every stream was acknowledged within %v", 3*liveBound)
		}
	}
	return conns
}

// readRawStream reads one listen response: status line, headers, then SSE
// lines; it reports the acknowledgement on acked and every list_changed on
// got, and returns when the connection closes.
func readRawStream(c net.Conn, acked chan<- error, got chan<- struct{}) {
	r := bufio.NewReaderSize(c, 4096)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		acked <- fmt.Errorf("status %q: %v", strings.TrimSpace(status), err)
		return
	}
	for { // headers
		line, err := r.ReadString('\n')
		if err != nil {
			acked <- err
			return
		}
		if line == "\r\n" {
			break
		}
	}
	ackSeen := false
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if !ackSeen {
				acked <- err
			}
			return
		}
		switch {
		case !ackSeen && strings.Contains(string(line), "notifications/subscriptions/acknowledged"):
			ackSeen = true
			acked <- nil
		case strings.Contains(string(line), "notifications/tools/list_changed"):
			got <- struct{}{}
		}
	}
}

// raiseFileLimit raises the soft open-file limit to at least n (up to the
// hard limit): every stream holds a client and a server socket.
func raiseFileLimit(b *testing.B, n uint64) {
	b.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatalf("getrlimit: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		// Raising the hard limit needs privilege (CAP_SYS_RESOURCE); try.
		up := syscall.Rlimit{Cur: n, Max: n}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &up) == nil {
			return
		}
	}
	lim.Cur = min(n, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < n {
		b.Fatalf("open-file limit %d (hard %d) is below the %d needed: %v", lim.Cur, lim.Max, n, err)
	}
}
