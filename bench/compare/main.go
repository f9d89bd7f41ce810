// Command compare measures glmcp against two peers on this machine and
// prints medians and ratios (scripts/bench runs it; doc/performance.md
// shows its output):
//
//   - glmcp: the binary built from this repository, serving on a fresh
//     PostgreSQL database (demo data, a fresh token for alice, rate limit
//     off, JSON access log at info to a file);
//   - bare: a net/http server answering every request with glmcp's exact
//     tools/list response (body and headers): the ceiling on those bytes;
//   - go-sdk: the official Go SDK v1.8.0 stateless Streamable HTTP server
//     (JSON responses) listing as many tools as glmcp, plus an echo tool.
//
// Each server runs in its own process; the load is this program's own
// closed-loop generator (bench/load) on loopback: a fixed number of
// keep-alive connections for a fixed time, every answer checked. Runs are
// interleaved (round after round, the order of the servers rotating), and
// the medians of the rounds are reported.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
	"gitlab.com/glmcp/glmcp/bench/load"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

type options struct {
	root, dbURL          string
	conns, rounds        int
	duration, warmup     time.Duration
	only                 string
	serveMode, serveFile string
}

func run() error {
	var o options
	defDB := harness.DefaultDatabaseURL()
	flag.StringVar(&o.root, "root", ".", "repository root (where ./cmd/glmcp is)")
	flag.StringVar(&o.dbURL, "database-url", defDB, "PostgreSQL server (loopback) in which a fresh database is created and dropped")
	flag.IntVar(&o.conns, "conns", 16, "connections (concurrent requests) per run")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds; each runs every request against every server once")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "measured time per run")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured warm-up per run")
	flag.StringVar(&o.only, "only", "", "run only the requests whose name contains this")
	flag.StringVar(&o.serveMode, "serve", "", "internal: serve a peer (bare or sdk)")
	flag.StringVar(&o.serveFile, "file", "", "internal: the peer's data file")
	flag.Parse()
	switch o.serveMode {
	case "bare":
		return serveBare(o.serveFile)
	case "sdk":
		return serveSDK(o.serveFile)
	case "":
	default:
		return fmt.Errorf("-serve %q: want bare or sdk", o.serveMode)
	}
	if o.rounds < 1 || o.conns < 1 || o.duration <= 0 {
		return errors.New("-rounds, -conns and -duration must be positive")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return compare(ctx, o)
}

// server names, in the order the table shows them.
const (
	srvGlmcp = "glmcp"
	srvBare  = "bare net/http"
	srvSDK   = "go-sdk v1.8.0"
	// srvPlain is a second glmcp on the same database with sanitising
	// and the audit trail off (GLMCP_SANITIZE=false, GLMCP_AUDIT=false):
	// what the two cost a tools/call.
	srvPlain = "glmcp, sanitize+audit off"
)

// scenario is one request, sent to each server that can answer it.
type scenario struct {
	name    string
	targets map[string]load.Target
}

func compare(ctx context.Context, o options) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ws, err := harness.NewWorkspace(ctx, o.root, o.dbURL)
	if err != nil {
		return err
	}
	defer ws.Close()
	dir, bin, db := ws.Dir, ws.Bin, ws.DB
	say("database %s: migrate, seed --demo, tokens create", db.Name)
	g, err := prepareGlmcp(ctx, bin, dir, db)
	if err != nil {
		return err
	}
	if err := g.Serve(ctx); err != nil {
		return err
	}
	defer g.Proc.Stop()

	plainG := *g.Glmcp
	plainG.Env = append(append([]string(nil), g.Env...), "GLMCP_SANITIZE=false", "GLMCP_AUDIT=false")
	plainG.Dir = filepath.Join(dir, "safety-off") // its own log; the store and repositories are shared
	if err := os.MkdirAll(plainG.Dir, 0o700); err != nil {
		return err
	}
	if err := plainG.Serve(ctx); err != nil {
		return err
	}
	defer plainG.Proc.Stop()

	glmcpReq := func(method string, params map[string]any) load.Target {
		return modernTarget(g.Addr, g.token, method, params)
	}
	list := glmcpReq("tools/list", nil)
	listRes, err := fetch(list)
	if err != nil {
		return fmt.Errorf("glmcp tools/list: %w", err)
	}
	tools, err := toolsOf(listRes.Body)
	if err != nil {
		return err
	}
	cannedFile := filepath.Join(dir, "tools-list.json")
	if err := writeJSON(cannedFile, canned{Header: peerHeader(listRes.Header), Body: listRes.Body}); err != nil {
		return err
	}
	toolsFile := filepath.Join(dir, "tools.json")
	if err := writeJSON(toolsFile, tools); err != nil {
		return err
	}
	bare, bareAddr, err := startPeer(self, "bare", cannedFile)
	if err != nil {
		return err
	}
	defer bare.Stop()
	sdk, sdkAddr, err := startPeer(self, "sdk", toolsFile)
	if err != nil {
		return err
	}
	defer sdk.Stop()

	sdkReq := func(method string, params map[string]any) load.Target {
		return modernTarget(sdkAddr, g.token, method, params)
	}
	bareList := modernTarget(bareAddr, g.token, "tools/list", nil)
	listWant := []byte(`"tools":[`)
	list.Want, bareList.Want = listWant, listWant
	sdkList := sdkReq("tools/list", nil)
	sdkList.Want = listWant
	discover, sdkDiscover := glmcpReq("server/discover", nil), sdkReq("server/discover", nil)
	discover.Want, sdkDiscover.Want = []byte(`"supportedVersions"`), []byte(`"supportedVersions"`)
	getIssue := glmcpReq("tools/call", map[string]any{
		"name": "get_issue", "arguments": map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}})
	getIssue.Want = []byte(`"structuredContent":{"id":2,"iid":2`)
	plainIssue := modernTarget(plainG.Addr, g.token, "tools/call", map[string]any{
		"name": "get_issue", "arguments": map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2}})
	plainIssue.Want = getIssue.Want
	listArgs := map[string]any{"name": "list_work_items", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 20}}
	listItems := glmcpReq("tools/call", listArgs)
	listItems.Want = []byte(`"structuredContent":{`)
	plainList := modernTarget(plainG.Addr, g.token, "tools/call", map[string]any{"name": "list_work_items",
		"arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 20}})
	plainList.Want = listItems.Want
	echo := sdkReq("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}})
	echo.Want = []byte(`{\"text\":\"hello\"}`)

	scenarios := []scenario{
		{fmt.Sprintf("Modern tools/list (%d tools)", len(tools)), map[string]load.Target{srvGlmcp: list, srvBare: bareList, srvSDK: sdkList}},
		{"Modern server/discover", map[string]load.Target{srvGlmcp: discover, srvSDK: sdkDiscover}},
		{"Modern tools/call get_issue (go-sdk: echo)", map[string]load.Target{srvGlmcp: getIssue, srvPlain: plainIssue, srvSDK: echo}},
		{"Modern tools/call list_work_items (20)", map[string]load.Target{srvGlmcp: listItems, srvPlain: plainList}},
	}
	if o.only != "" {
		scenarios = filterScenarios(scenarios, o.only)
	}
	for _, sc := range scenarios { // every target answers what it should before any load
		for name, t := range sc.targets {
			if _, err := fetch(t); err != nil {
				return fmt.Errorf("%s on %s: %w", sc.name, name, err)
			}
		}
	}

	sessions, err := newSessionCounter(ctx, db)
	if err != nil {
		return err
	}
	defer sessions.close()
	meter, err := newCPUMeter(ctx, db.URL, db.Name)
	if err != nil {
		return err
	}
	defer meter.close()
	pids := map[string]int{srvGlmcp: g.Proc.Cmd.Process.Pid, srvPlain: plainG.Proc.Cmd.Process.Pid}

	rep := newReport(o, scenarios)
	loadBefore := harness.LoadAverage()
	for round := range o.rounds {
		for _, sc := range scenarios {
			for _, name := range rotate(serverOrder(sc), round) {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				// New sessions are counted over the measured window only:
				// the warm-up may open the pool, and the end of a run cuts
				// requests in flight, whose cancelled queries make pgx
				// close their connections.
				var sess chan sessionWindow
				if name == srvGlmcp {
					sess = make(chan sessionWindow, 1)
					go func() { sess <- sessions.window(ctx, o.warmup, o.duration-100*time.Millisecond) }()
				}
				var cpu chan cpuUse
				if pid, ok := pids[name]; ok {
					cpu = make(chan cpuUse, 1)
					go func() { cpu <- meter.window(ctx, pid, o.warmup, o.duration-100*time.Millisecond) }()
				}
				res, err := load.Run(ctx, sc.targets[name], load.Options{Conns: o.conns, Warmup: o.warmup, Duration: o.duration})
				if err != nil {
					return err
				}
				if res.Errors > 0 {
					return fmt.Errorf("%s on %s: %d wrong answers, first: %s", sc.name, name, res.Errors, res.FirstError)
				}
				m := measurement{rate: res.Rate(), p50: res.Quantile(0.5), p99: res.Quantile(0.99), bytes: res.ResponseBytes}
				if sess != nil {
					w := <-sess
					if w.err != nil {
						return w.err
					}
					m.sessionsPerSec = w.perSecond
				}
				if cpu != nil {
					u := <-cpu
					if u.err != nil {
						return u.err
					}
					m.cpu = u
				}
				rep.add(sc.name, name, m)
				say("round %d  %-44s %-14s %8.0f req/s  p50 %-9v p99 %-9v%s", round+1, sc.name, name, m.rate, m.p50.Round(10*time.Microsecond), m.p99.Round(10*time.Microsecond), m.cpuLine())
			}
		}
	}
	rss, peak := g.Proc.Memory()
	rep.print(os.Stdout, reportEnv{
		loadBefore: loadBefore, loadAfter: harness.LoadAverage(), glmcpRSS: rss, glmcpPeakRSS: peak,
	})
	return nil
}

// serverOrder lists the servers of sc in table order.
func serverOrder(sc scenario) []string {
	var out []string
	for _, n := range []string{srvGlmcp, srvPlain, srvBare, srvSDK} {
		if _, ok := sc.targets[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

func rotate(s []string, k int) []string {
	k %= len(s)
	return append(append([]string(nil), s[k:]...), s[:k]...)
}

func filterScenarios(all []scenario, only string) []scenario {
	var out []scenario
	for _, sc := range all {
		if strings.Contains(sc.name, only) {
			out = append(out, sc)
		}
	}
	return out
}

// modernTarget is a well-formed 2026-07-28 request to addr's CE endpoint,
// with _meta and the mirrored headers, as a conforming client sends it.
func modernTarget(addr, token, method string, params map[string]any) load.Target {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "bench", "version": "1.0.0"},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	hd := [][2]string{
		{"Authorization", "Bearer " + token},
		{"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"},
		{"MCP-Protocol-Version", "2026-07-28"},
		{"Mcp-Method", method},
	}
	if name, ok := params["name"].(string); ok {
		hd = append(hd, [2]string{"Mcp-Name", name})
	}
	return load.Target{Addr: addr, Request: load.NewRequest(addr, "/api/v4/mcp", hd, body)}
}

// fetched is one answer read with net/http.
type fetched struct {
	Header http.Header
	Body   []byte
}

// fetch sends t's request once through net/http and checks the answer:
// a 200 with t.Want in the body.
func fetch(t load.Target) (*fetched, error) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(t.Request)))
	if err != nil {
		return nil, err
	}
	req.RequestURI, req.URL.Scheme, req.URL.Host = "", "http", t.Addr
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, t.Want) {
		return nil, fmt.Errorf("status %d, body %.300s", resp.StatusCode, body)
	}
	return &fetched{Header: resp.Header, Body: body}, nil
}

// peerHeader is glmcp's response header as the bare server replays it:
// without what net/http sets itself.
func peerHeader(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range []string{"Date", "Content-Length", "Connection", "Transfer-Encoding"} {
		h.Del(k)
	}
	return h
}

// toolsOf returns the tools array of a tools/list response.
func toolsOf(body []byte) ([]json.RawMessage, error) {
	var env struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil || len(env.Result.Tools) == 0 {
		return nil, fmt.Errorf("glmcp tools/list: no tools in %.300s", body)
	}
	return env.Result.Tools, nil
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "# "+format+"\n", args...)
}
