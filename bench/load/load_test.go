package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// server answers /small with a Content-Length body, /chunked with a
// flushed (chunked) body of several pieces, /close with Connection:
// close, and anything else with 500. It counts the requests it answered
// and checks each carries the body the generator sent.
func server(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != `{"ping":1}` {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		n.Add(1)
		switch r.URL.Path {
		case "/small":
			_, _ = io.WriteString(w, `{"ok":true}`)
		case "/chunked":
			for i := range 3 {
				_, _ = io.WriteString(w, strings.Repeat("x", 5000)+string(rune('a'+i)))
				w.(http.Flusher).Flush()
			}
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = io.WriteString(w, `{"ok":true}`)
		default:
			http.Error(w, "nope", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

func target(ts *httptest.Server, path, want string) Target {
	addr := strings.TrimPrefix(ts.URL, "http://")
	return Target{
		Addr:    addr,
		Request: NewRequest(addr, path, [][2]string{{"Content-Type", "application/json"}}, []byte(`{"ping":1}`)),
		Want:    []byte(want),
	}
}

func TestRun_countsCheckedAnswers(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/small", `"ok":true`},
		{"/chunked", "xc"}, // the last piece: the whole chunked body was read
		{"/close", `"ok":true`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			ts, served := server(t)
			res, err := Run(context.Background(), target(ts, tc.path, tc.want),
				Options{Conns: 3, Warmup: 50 * time.Millisecond, Duration: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if res.Errors != 0 {
				t.Fatalf("errors = %d (%s), want 0", res.Errors, res.FirstError)
			}
			if res.Requests == 0 || len(res.Latencies) != res.Requests {
				t.Fatalf("requests = %d, latencies = %d", res.Requests, len(res.Latencies))
			}
			// The server answered every counted request, plus the warm-up
			// and the ones cut at the end.
			if got := served.Load(); got < int64(res.Requests) {
				t.Errorf("server answered %d, generator counted %d", got, res.Requests)
			}
			if res.Quantile(0.5) <= 0 || res.Quantile(0.99) < res.Quantile(0.5) {
				t.Errorf("p50 %v, p99 %v", res.Quantile(0.5), res.Quantile(0.99))
			}
			if tc.path == "/chunked" && res.ResponseBytes != 15003 {
				t.Errorf("response bytes = %d, want 15003", res.ResponseBytes)
			}
		})
	}
}

func TestRun_countsWrongAnswers(t *testing.T) {
	ts, _ := server(t)
	for _, tc := range []struct{ path, want, errPart string }{
		{"/fail", "", "status 500"},
		{"/small", "absent", "status 200"},
	} {
		res, err := Run(context.Background(), target(ts, tc.path, tc.want),
			Options{Conns: 2, Duration: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors == 0 || res.Requests != 0 || !strings.Contains(res.FirstError, tc.errPart) {
			t.Errorf("%s: errors %d, requests %d, first error %q; want errors only, mentioning %q",
				tc.path, res.Errors, res.Requests, res.FirstError, tc.errPart)
		}
	}
}

func TestRun_refusesNonLoopback(t *testing.T) {
	_, err := Run(context.Background(), Target{Addr: "192.0.2.1:80"}, Options{Conns: 1, Duration: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err = %v, want a loopback refusal", err)
	}
}
