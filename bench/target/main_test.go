package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A target that answers every request 200 with a result: one first
// request shows its RateLimit headers, then the load's figures, no error.
func TestRun_measuresATarget(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("RateLimit-Limit", "600")
		w.Header().Set("RateLimit-Remaining", "599")
		w.Header().Set("RateLimit-Reset", "1")
		w.Header().Set("RateLimit-Policy", "600;w=60")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	defer srv.Close()
	var out bytes.Buffer
	if err := run([]string{"-url", srv.URL + "/api/v4/mcp", "-conns", "1", "-warmup", "0s", "-duration", "200ms"}, "glpat-x", &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if got[0] != "Bearer glpat-x" {
		t.Errorf("Authorization = %q, want the token from GLMCP_TOKEN", got[0])
	}
	for _, want := range []string{
		"first answer: HTTP 200, RateLimit-Limit: 600, RateLimit-Remaining: 599, RateLimit-Reset: 1, RateLimit-Policy: 600;w=60\n",
		", errors 0\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "glpat-x") {
		t.Error("the token was printed")
	}
}

// A wrong answer fails the run: the first request's status, or any answer
// of the load that is not a 200 with a result.
func TestRun_failsOnWrongAnswers(t *testing.T) {
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-31029,"message":"Rate limit exceeded"}}`))
	}))
	defer limited.Close()
	err := run([]string{"-url", limited.URL + "/api/v4/mcp"}, "glpat-x", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "first request: HTTP 429") {
		t.Errorf("429 target: err = %v, want the first request's 429", err)
	}

	var n atomic.Int64
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 3 {
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	defer flaky.Close()
	err = run([]string{"-url", flaky.URL + "/api/v4/mcp", "-conns", "1", "-warmup", "0s", "-duration", "100ms"}, "glpat-x", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "answers were not a 200 with a result") {
		t.Errorf("target answering errors: err = %v, want the run to fail", err)
	}
}

func TestRun_refusesBadArguments(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		token string
		want  string
	}{
		{[]string{}, "t", `-url "": want http://HOST:PORT/PATH`},
		{[]string{"-url", "https://127.0.0.1:1/api/v4/mcp"}, "t", "want http://HOST:PORT/PATH"},
		{[]string{"-url", "http://127.0.0.1/api/v4/mcp"}, "t", "want http://HOST:PORT/PATH"},
		{[]string{"-url", "http://127.0.0.1:1/x", "-method", "tools/call"}, "t", `-method "tools/call": want ping or tools/list`},
		{[]string{"-url", "http://127.0.0.1:1/x"}, "", "GLMCP_TOKEN is empty"},
		{[]string{"-url", "http://127.0.0.1:1/x", "-conns", "0"}, "t", "-conns must be at least 1"},
	} {
		start := time.Now()
		err := run(tt.args, tt.token, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
		}
		if time.Since(start) > time.Second {
			t.Errorf("run(%q) sent requests before refusing its arguments", tt.args)
		}
	}
}
