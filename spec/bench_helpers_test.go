package spec

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Helpers of the HTTP benchmarks (bench_*_test.go): every request goes
// through a real loopback listener with a keep-alive client, and every
// answer is read to the end and checked, so the numbers cover the whole
// stack: client encoding, TCP, the router, middleware, dispatcher,
// services, store, and the response. Client and server share the process,
// so B/op and allocs/op count both sides.

// benchBackends are the stores a benchmark runs on: the embedded SQLite
// always, PostgreSQL when GLMCP_TEST_DATABASE_URL is set.
func benchBackends(b *testing.B, run func(b *testing.B, opts ...option)) {
	b.Run("sqlite", func(b *testing.B) { run(b, withDSN("")) })
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(storetest.EnvDatabaseURL) == "" {
			b.Skip(storetest.EnvDatabaseURL + " is not set")
		}
		run(b)
	})
}

// benchClient is a keep-alive client with enough idle connections for
// b.RunParallel.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: 512, MaxIdleConnsPerHost: 512, MaxConnsPerHost: 0, DisableCompression: true,
	}}
}

// benchRequest is one prepared POST: the same body and headers every time.
type benchRequest struct {
	url    string
	body   []byte
	header http.Header
	// want must appear in every response body (e.g. `"result"`).
	want []byte
}

// newBenchRequest prepares request (built like a spec request) for the
// benchmark loop.
func newBenchRequest(url, body string, hd http.Header, want string) *benchRequest {
	hd = hd.Clone()
	hd.Set("Content-Type", "application/json")
	hd.Set("Accept", "application/json, text/event-stream")
	return &benchRequest{url: url, body: []byte(body), header: hd, want: []byte(want)}
}

// benchCaller sends a benchRequest repeatedly from one goroutine, reusing
// its read buffer.
type benchCaller struct {
	c   *http.Client
	r   *benchRequest
	buf bytes.Buffer
}

// call sends the request once; anything but a 200 whose body holds
// r.want is an error.
func (x *benchCaller) call() error {
	req, err := http.NewRequest(http.MethodPost, x.r.url, bytes.NewReader(x.r.body))
	if err != nil {
		return err
	}
	req.Header = x.r.header // read-only: safe to share
	res, err := x.c.Do(req)
	if err != nil {
		return err
	}
	x.buf.Reset()
	_, err = x.buf.ReadFrom(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK || !bytes.Contains(x.buf.Bytes(), x.r.want) {
		return fmt.Errorf("status %d, body %.300s", res.StatusCode, x.buf.Bytes())
	}
	return nil
}

// benchRun measures r serially and under b.RunParallel.
func benchRun(b *testing.B, r *benchRequest) {
	c := benchClient()
	b.Cleanup(c.CloseIdleConnections)
	warm := &benchCaller{c: c, r: r}
	if err := warm.call(); err != nil { // outside the timer: connection, caches
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		x := &benchCaller{c: c, r: r}
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			if err := x.call(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		b.RunParallel(func(pb *testing.PB) {
			x := &benchCaller{c: c, r: r}
			for pb.Next() {
				if err := x.call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// reportCPU reports the CPU time (user + system) this process spent per
// operation, client and server together, as cpu-µs/op: on a shared
// machine it moves far less with the neighbours' load than ns/op does.
// The database server's CPU is not in it (PostgreSQL runs in its own
// processes; SQLite runs in this one), so compare it across runs of one
// store. Call as defer reportCPU(b)().
func reportCPU(b *testing.B) func() {
	before := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((processCPU()-before).Microseconds())/float64(b.N), "cpu-µs/op")
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
