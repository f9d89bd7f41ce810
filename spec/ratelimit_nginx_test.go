package spec

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/bench/load"
)

// startNginx runs nginx (skipped when it is not installed, failed under
// CI=true, where scripts/test installs it) with the
// repository's deploy/nginx/glmcp.conf, its upstreams pointed at the
// instances and its listener at a free loopback port; it returns that
// address. The process ends with the test.
func startNginx(t *testing.T, instances []*instance) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, err = os.Stat("/usr/sbin/nginx"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("CI=true: the load balancer spec needs nginx (scripts/test installs nginx-light)")
			}
			t.Skip("nginx is not installed (apt-get install nginx-light); skipping the load balancer spec")
		}
		bin = "/usr/sbin/nginx"
	}
	conf, err := os.ReadFile("../deploy/nginx/glmcp.conf")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	site := string(conf)
	var upstreams []string
	for _, in := range instances {
		upstreams = append(upstreams, "    server "+strings.TrimPrefix(in.base, "http://")+" max_fails=3 fail_timeout=10s;")
	}
	re := regexp.MustCompile(`(?m)^    server scale-\d:8080 .*\n`)
	if n := len(re.FindAllString(site, -1)); n != 3 {
		t.Fatalf("deploy/nginx/glmcp.conf names %d scale-N upstreams, want 3", n)
	}
	site = re.ReplaceAllString(site, "")
	site = strings.Replace(site, "keepalive 64;", strings.Join(upstreams, "\n")+"\n    keepalive 64;", 1)
	site = strings.Replace(site, "listen 8080;", "listen "+addr+";", 1)
	dir := t.TempDir()
	main := fmt.Sprintf(`daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
worker_processes 1;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include %[1]s/glmcp.conf;
}
`, dir)
	for name, body := range map[string]string{"nginx.conf": main, "glmcp.conf": site} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(bin, "-t", "-p", dir, "-c", filepath.Join(dir, "nginx.conf")).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t with deploy/nginx/glmcp.conf: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGTERM: the master stops its workers (killed, it would leave them
	// running).
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not listen on %s within 10s\n%s", addr, log)
		}
	}
}

// Three instances behind nginx configured as deploy/nginx/glmcp.conf (the
// compose scale profile's): the budget is exact through the load balancer
// with the RateLimit headers passed on, a listen stream is acknowledged
// through it at once (no buffering), and the load command's closed-loop run
// through it answers every request 200 (its figures are in
// doc/performance.md).
func TestSharedLimits_throughNginx(t *testing.T) {
	c := startCluster(t, 3, "--rate-limit", "20/60s", "--trusted-proxies", "127.0.0.1")
	addr := startNginx(t, c.instances)
	lb := &harness{URL: "http://" + addr, CE: "http://" + addr + cePath, Tokens: c.tokens}

	start := time.Now()
	var remaining []string
	for i := range 60 {
		r := lb.send(t, call{User: "alice", ID: i, Method: "ping"})
		if r.Header.Get("RateLimit-Limit") != "20" || r.Header.Get("RateLimit-Policy") != "20;w=60" {
			t.Fatalf("request %d through nginx: RateLimit-Limit %q, Policy %q", i+1, r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Policy"))
		}
		switch r.Status {
		case http.StatusOK:
			remaining = append(remaining, r.Header.Get("RateLimit-Remaining"))
		case http.StatusTooManyRequests:
			r.expectError(t, http.StatusTooManyRequests, -31029)
			if r.Header.Get("Retry-After") == "" {
				t.Fatal("429 through nginx without Retry-After")
			}
		default:
			t.Fatalf("request %d through nginx: %d %s", i+1, r.Status, r.Body)
		}
	}
	extra := int(time.Since(start) / (3 * time.Second)) // one token per 3s
	if len(remaining) != 20+extra {
		t.Fatalf("%d of 60 requests allowed through nginx in %s, want %d", len(remaining), time.Since(start), 20+extra)
	}
	if (extra == 0 && remaining[0] != "19") || remaining[len(remaining)-1] != "0" {
		t.Fatalf("RateLimit-Remaining through nginx = %v, want 19 down to 0", remaining)
	}

	s, r := lb.open(t, listenCall(lb.CE, "bob", "lb", toolsOnly()))
	if s == nil {
		t.Fatalf("listen through nginx: %d %s", r.Status, r.Body)
	}
	expectAck(t, s, "lb", true)
	s.Close()

	// The load: carol has her own, ample limit, so every answer is a 200.
	twoProcCLIFor(t, c, "users", "set-rate-limit", "carol", "1000000/60s")
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	target := func(addr string) load.Target {
		return load.Target{Addr: addr, Want: []byte(`"result"`), Request: load.NewRequest(addr, cePath, [][2]string{
			{"Authorization", "Bearer " + c.tokens["carol"]}, {"Content-Type", "application/json"},
			{"Accept", "application/json, text/event-stream"}}, body)}
	}
	for _, run := range []struct{ name, addr string }{
		{"nginx, three instances", addr},
		{"one instance directly", strings.TrimPrefix(c.instances[0].base, "http://")},
	} {
		res, err := load.Run(context.Background(), target(run.addr), load.Options{Conns: 8, Warmup: time.Second, Duration: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors > 0 {
			t.Fatalf("%s: %d wrong answers of %d, first: %s", run.name, res.Errors, res.Requests, res.FirstError)
		}
		t.Logf("%s: %d requests, %.0f/s, p50 %s, p99 %s", run.name, res.Requests, res.Rate(),
			res.Quantile(0.5).Round(10*time.Microsecond), res.Quantile(0.99).Round(10*time.Microsecond))
	}
}
