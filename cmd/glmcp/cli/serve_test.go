package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for the serving goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// served is a `glmcp serve` running in the test.
type served struct {
	base   string // http://127.0.0.1:PORT
	banner string // stdout
	stop   func() error
}

// startServe runs `glmcp serve` (the default command) on an ephemeral
// loopback port and returns once it accepts connections.
func startServe(t *testing.T, env map[string]string, args ...string) *served {
	t.Helper()
	return startServeBuild(t, Build{}, env, args...)
}

// startServeBuild is startServe for the binary of build b.
func startServeBuild(t *testing.T, b Build, env map[string]string, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &syncBuffer{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, b, args, func(k string) string { return env[k] }, stdout, pw)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	// The "serving" log line carries the bound address; the banner is
	// printed before it.
	var addr string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
			addr = line.Addr
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if addr == "" {
		cancel()
		t.Fatalf("serve ended before serving: %v\nstdout: %s", <-done, stdout.String())
	}
	var once sync.Once
	var stopErr error
	s := &served{base: "http://" + addr, banner: stdout.String(), stop: func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}}
	t.Cleanup(func() { _ = s.stop() })
	return s
}

// bannerCurl matches the curl command the demo banner prints.
var bannerCurl = regexp.MustCompile(`curl -s (\S+) \\\s+-H 'Authorization: Bearer (glpat-[^']+)'[\s\S]*?-d '([^']+)'`)

// Ensure `glmcp` with no arguments serves the embedded store with demo
// data, prints demo tokens and a curl command that works as printed, and
// stops cleanly on cancellation; the health check sees it ready.
func TestServeDemo(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"GLMCP_DATA_DIR": dir, "GLMCP_LISTEN": "127.0.0.1:0", "GLMCP_LOG_LEVEL": "info"}
	s := startServe(t, env)

	for _, u := range []string{"root", "alice", "bob", "carol", "dave"} {
		if !regexp.MustCompile(`(?m)^\s+` + u + `\s.*glpat-\S+$`).MatchString(s.banner) {
			t.Errorf("banner has no token line for %s:\n%s", u, s.banner)
		}
	}
	m := bannerCurl.FindStringSubmatch(s.banner)
	if m == nil {
		t.Fatalf("banner has no curl example:\n%s", s.banner)
	}
	// The banner names the configured address (port 0 here); the request
	// goes to the bound one.
	if !strings.HasSuffix(m[1], "/api/v4/mcp") {
		t.Errorf("curl URL %q is not the CE endpoint", m[1])
	}
	url, token, body := s.base+"/api/v4/mcp", m[2], m[3]

	status, resp := post(t, url, token, body)
	if status != http.StatusOK {
		t.Fatalf("the banner's curl: HTTP %d %s", status, resp)
	}
	var res struct {
		ID     int `json:"id"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(resp, &res); err != nil || res.Result == nil || res.ID != 1 {
		t.Fatalf("the banner's curl: %s (%v)", resp, err)
	}
	if res.Result.IsError || len(res.Result.Content) == 0 {
		t.Errorf("the banner's curl returned a tool error: %s", resp)
	}

	// Every demo token in the banner works on tools/list.
	status, resp = post(t, url, token, `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`)
	if status != http.StatusOK || !strings.Contains(string(resp), `"get_mcp_server_version"`) {
		t.Errorf("tools/list: HTTP %d %s", status, resp)
	}

	var out bytes.Buffer
	if err := run(context.Background(), []string{"healthcheck", "--url", s.base + "/-/readiness"}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Errorf("healthcheck against the running server: %v", err)
	}

	if err := s.stop(); err != nil {
		t.Errorf("serve returned %v on shutdown, want nil", err)
	}
	if err := run(context.Background(), []string{"healthcheck", "--url", s.base + "/-/readiness", "--timeout", "2s"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Errorf("healthcheck succeeded against a stopped server")
	}

	// A second start on the same data directory keeps the data and prints
	// fresh tokens; the old ones still work.
	s2 := startServe(t, env, "serve")
	m2 := bannerCurl.FindStringSubmatch(s2.banner)
	if m2 == nil || m2[2] == token {
		t.Fatalf("second start: want a fresh alice token in the banner:\n%s", s2.banner)
	}
	if status, resp := post(t, s2.base+"/api/v4/mcp", token, body); status != http.StatusOK {
		t.Errorf("first start's token after restart: HTTP %d %s", status, resp)
	}
}

// Ensure --demo=false serves an empty embedded store without a banner.
func TestServeNoDemo(t *testing.T) {
	env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_LISTEN": "127.0.0.1:0", "GLMCP_DEMO": "false"}
	s := startServe(t, env)
	if s.banner != "" {
		t.Errorf("banner printed with GLMCP_DEMO=false:\n%s", s.banner)
	}
	if status, _ := post(t, s.base+"/api/v4/mcp", "glpat-nothing", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusUnauthorized {
		t.Errorf("unknown token: HTTP %d, want 401", status)
	}
}

// Ensure serve reports a taken port instead of hanging.
func TestServePortTaken(t *testing.T) {
	busy := httptest.NewServer(http.NotFoundHandler())
	defer busy.Close()
	addr := strings.TrimPrefix(busy.URL, "http://")
	env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_LISTEN": addr, "GLMCP_DEMO": "false"}
	err := run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "listen on "+addr) {
		t.Fatalf("serve on a taken port: %v, want a listen error naming %s", err, addr)
	}
}

func post(t *testing.T, url, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// Ensure healthcheck exits 0 only on HTTP 200 and refuses bad input.
func TestHealthcheck(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/-/readiness", http.StatusFound)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	hc := func(args ...string) (string, error) {
		var out bytes.Buffer
		// An invalid configuration must not matter to the probe.
		env := map[string]string{"GLMCP_PAGE_SIZE": "0"}
		err := run(context.Background(), append([]string{"healthcheck"}, args...), func(k string) string { return env[k] }, &out, io.Discard)
		return out.String(), err
	}

	out, err := hc("--url", srv.URL+"/-/readiness")
	if err != nil || !strings.Contains(out, "HTTP 200") {
		t.Errorf("healthy: %v, %q", err, out)
	}
	status = http.StatusServiceUnavailable
	if _, err := hc("--url", srv.URL+"/-/readiness"); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("unhealthy: %v, want an error naming HTTP 503", err)
	}
	status = http.StatusOK
	if _, err := hc("--url", srv.URL+"/redirect"); err == nil || !strings.Contains(err.Error(), "HTTP 302") {
		t.Errorf("redirect: %v, want an error naming HTTP 302", err)
	}
	for _, bad := range []string{"not a url", "ftp://example.com/x", "http://"} {
		if _, err := hc("--url", bad); err == nil || !strings.Contains(err.Error(), "--url") {
			t.Errorf("--url %q: %v, want a --url error", bad, err)
		}
	}
	if _, err := hc("--url", srv.URL, "--timeout", "0s"); err == nil || !strings.Contains(err.Error(), "--timeout") {
		t.Errorf("--timeout 0: %v", err)
	}
	// A server that never answers: the probe gives up after --timeout.
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	if _, err := hc("--url", slow.URL, "--timeout", "200ms"); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hanging server: %v, want a deadline error", err)
	}
}

// Ensure the banner of a server listening on every interface without a
// public URL names a URL that works here (loopback, not [::] or 0.0.0.0),
// says how to set the public one, and on EE names both endpoints; the
// OAuth metadata uses the same URL.
func TestServeBannerAllInterfaces(t *testing.T) {
	env := map[string]string{"GLMCP_DATA_DIR": t.TempDir(), "GLMCP_LISTEN": "0.0.0.0:0", "GLMCP_LOG_LEVEL": "info", "GLMCP_EDITION": "ee",
		"GLMCP_OAUTH_AUTHORIZATION_SERVERS": "https://gitlab.example.com"} // metadata is served with an authorization server
	s := startServe(t, env)
	m := bannerCurl.FindStringSubmatch(s.banner)
	if m == nil {
		t.Fatalf("banner has no curl example:\n%s", s.banner)
	}
	if !strings.HasPrefix(m[1], "http://127.0.0.1:") || strings.HasSuffix(m[1], ":0/api/v4/mcp") {
		t.Errorf("curl URL %q, want the bound port on 127.0.0.1", m[1])
	}
	for _, bad := range []string{"[::]", "0.0.0.0"} {
		if strings.Contains(s.banner, "http://"+bad) {
			t.Errorf("banner names unreachable %s:\n%s", bad, s.banner)
		}
	}
	for _, want := range []string{"GLMCP_PUBLIC_URL", "--public-url", "/api/v4/orbit/mcp"} {
		if !strings.Contains(s.banner, want) {
			t.Errorf("banner does not mention %s:\n%s", want, s.banner)
		}
	}
	port := m[1][len("http://127.0.0.1:") : len(m[1])-len("/api/v4/mcp")]
	res, err := http.Get("http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/api/v4/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(b), `"resource":"http://127.0.0.1:`+port+`/api/v4/mcp"`) {
		t.Errorf("protected resource metadata: %s", b)
	}
}
