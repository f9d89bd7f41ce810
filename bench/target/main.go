// Command target runs the load generator (bench/load) against a glmcp that
// is already running: one instance, or the load balancer in front of
// several (the compose scale profile's nginx). scripts/bench target runs
// it, and scripts/compose-test runs that through nginx (doc/performance.md):
//
//	GLMCP_TOKEN=glpat-… scripts/bench target -url http://127.0.0.1:8090/api/v4/mcp
//	GLMCP_TOKEN=glpat-… scripts/bench target -url … -method tools/list -conns 16 -duration 10s
//
// The token is read from GLMCP_TOKEN and never printed; its user's limit
// must allow the load (glmcp users set-rate-limit), since every answer has
// to be a 200 with a result. One request first prints the RateLimit-*
// headers the target answers with; then the closed-loop run prints its
// figures. The exit status is 1 when any answer was wrong.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/bench/load"
)

func main() {
	if err := run(os.Args[1:], os.Getenv("GLMCP_TOKEN"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench target:", err)
		os.Exit(1)
	}
}

// bodies are the requests -method chooses from: stateless, so any
// instance behind a balancer answers them alike.
var bodies = map[string]string{
	"ping":       `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	"tools/list": `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
}

func run(args []string, token string, out io.Writer) error {
	fs := flag.NewFlagSet("target", flag.ContinueOnError)
	endpoint := fs.String("url", "", "the MCP endpoint, http://127.0.0.1:PORT/api/v4/mcp (loopback only)")
	method := fs.String("method", "ping", "the request: ping or tools/list")
	conns := fs.Int("conns", 8, "connections (concurrent requests)")
	warmup := fs.Duration("warmup", time.Second, "unmeasured warm-up")
	duration := fs.Duration("duration", 5*time.Second, "measured time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := url.Parse(*endpoint)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.Port() == "" {
		return fmt.Errorf("-url %q: want http://HOST:PORT/PATH", *endpoint)
	}
	body, ok := bodies[*method]
	if !ok {
		return fmt.Errorf("-method %q: want ping or tools/list", *method)
	}
	if token == "" {
		return errors.New("GLMCP_TOKEN is empty: set it to a token with the mcp scope")
	}
	if *conns < 1 || *duration <= 0 || *warmup < 0 {
		return errors.New("-conns must be at least 1 and -duration positive")
	}
	header := [][2]string{{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"}}

	// One request first: the answer and its RateLimit-* headers.
	req, err := http.NewRequest(http.MethodPost, u.String(), strings.NewReader(body))
	if err != nil {
		return err
	}
	for _, h := range header {
		req.Header.Set(h[0], h[1])
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	first, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("first request: HTTP %d: %s", resp.StatusCode, first)
	}
	fmt.Fprintf(out, "target %s, %s, %d connections, %s (after %s warm-up)\n", u, *method, *conns, *duration, *warmup)
	var hs []string
	for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"} {
		hs = append(hs, name+": "+resp.Header.Get(name))
	}
	fmt.Fprintf(out, "first answer: HTTP %d, %s\n", resp.StatusCode, strings.Join(hs, ", "))

	res, err := load.Run(context.Background(), load.Target{
		Addr: u.Host, Want: []byte(`"result"`), Request: load.NewRequest(u.Host, u.RequestURI(), header, []byte(body)),
	}, load.Options{Conns: *conns, Warmup: *warmup, Duration: *duration})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "requests %d, %.0f/s, p50 %s, p90 %s, p99 %s, errors %d\n", res.Requests, res.Rate(),
		res.Quantile(0.5).Round(10*time.Microsecond), res.Quantile(0.9).Round(10*time.Microsecond),
		res.Quantile(0.99).Round(10*time.Microsecond), res.Errors)
	if res.Errors > 0 {
		return fmt.Errorf("%d of %d answers were not a 200 with a result; first: %s", res.Errors, res.Requests+res.Errors, res.FirstError)
	}
	if res.Requests == 0 {
		return errors.New("no request completed")
	}
	return nil
}
