package spec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Load, shutdown and isolation (issue #13, "done when"): SIGTERM to the
// real binary while clients keep calling, a short soak of mixed traffic,
// and a sweep checking that no user reads what only others may. Every
// loop here is bounded in count and time, talks to loopback only, and
// stops by itself. -reliability.long makes the soak last minutes.

// relLoad sends the mixed request of worker i against endpoint with token
// until stop closes or n requests are done, counting outcomes.
type relLoadCounts struct {
	ok, toolErrors, refused, failed, transport atomic.Int64
	// lost counts requests written whole on a connection the server had
	// accepted (kept alive) whose answer never came (the connection
	// closed under them).
	lost atomic.Int64
	// unaccepted counts requests written whole on a new connection that
	// was reset: the kernel completed it, the server had not accepted it
	// when its listener closed (TCP resets those; nothing was read).
	unaccepted atomic.Int64
}

func relLoad(ctx context.Context, client *http.Client, endpoint, token string, worker int, c *relLoadCounts) {
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_issue","arguments":{"id":"gitlab-org/gitlab-mcp","issue_iid":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"scope":"issues","search":"nebula"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_merge_request","arguments":{"id":"gitlab-org/gitlab-mcp","merge_request_iid":1}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_issue","arguments":{"id":"acme/secret-plans","issue_iid":1}}}`,
	}
	for i := 0; ctx.Err() == nil && i < 100_000; i++ {
		r := relPostBody(ctx, client, endpoint, token, bodies[(worker+i)%len(bodies)])
		switch {
		case r.err != nil && ctx.Err() != nil:
			return // the run ended during this request
		case r.err != nil && r.sent && r.reused:
			c.lost.Add(1)
		case r.err != nil && r.sent:
			c.unaccepted.Add(1)
		case r.err != nil:
			c.transport.Add(1)
		case r.status == http.StatusOK && r.isError:
			c.toolErrors.Add(1)
		case r.status == http.StatusOK:
			c.ok.Add(1)
		case r.status == http.StatusServiceUnavailable || r.status == http.StatusTooManyRequests:
			c.refused.Add(1)
		default:
			c.failed.Add(1)
		}
	}
}

// relPostBody posts a raw JSON-RPC body with token as a Bearer credential,
// noting whether the request was written whole before any error.
func relPostBody(ctx context.Context, client *http.Client, url, token, body string) relCallResult {
	var sent, reused atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:      func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		WroteRequest: func(i httptrace.WroteRequestInfo) { sent.Store(i.Err == nil) },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return relCallResult{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	r := relPost(client, req)
	r.sent, r.reused = sent.Load(), reused.Load()
	return r
}

func TestReliability_sigtermUnderLoad(t *testing.T) {
	bin := cliBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", dir, "--rate-limit", "0", "--log-level", "info")
	cmd.Env = cliEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The banner names alice's token; the "serving" log line the address.
	tokens := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`^\s+alice\s.*\s(glpat-\S+)$`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				tokens <- m[1]
			}
		}
	}()
	addrs := make(chan string, 1)
	var logMu sync.Mutex
	var logLines []string
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			logLines = append(logLines, sc.Text())
			logMu.Unlock()
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addrs <- line.Addr
			}
		}
	}()
	var token, addr string
	for token == "" || addr == "" {
		select {
		case token = <-tokens:
		case addr = <-addrs:
		case <-time.After(2 * time.Minute):
			t.Fatal("glmcp serve did not start within 2 minutes")
		}
	}
	endpoint := "http://" + addr + cePath

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := &http.Client{Timeout: 20 * time.Second}
	var counts relLoadCounts
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() { relLoad(ctx, client, endpoint, token, w, &counts) })
	}
	for counts.ok.Load() < 50 && ctx.Err() == nil { // under load before the signal
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	select {
	case err := <-waitErr:
		if err != nil {
			t.Errorf("glmcp serve exited with %v after SIGTERM, want status 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("glmcp serve did not stop within 30s of SIGTERM")
	}
	cancel()
	wg.Wait()
	<-logDone
	// Every request written whole on a connection the server accepted is
	// answered (issue #21, item 6: 3 of 8 got a closed connection once);
	// afterwards connections are refused (transport errors before anything
	// was sent), and a new connection still in the kernel's queue when the
	// listener closes is reset (counted, not failed: the server never read
	// it, and it takes what is queued for acceptGrace first). Nothing may
	// fail with a 5xx or a wrong answer.
	if counts.failed.Load() != 0 {
		t.Errorf("%d requests failed with an HTTP error during shutdown", counts.failed.Load())
	}
	if counts.lost.Load() != 0 {
		t.Errorf("%d requests were sent whole and got a closed connection instead of their answer", counts.lost.Load())
	}
	logMu.Lock()
	log := strings.Join(logLines, "\n")
	logMu.Unlock()
	for _, want := range []string{`"msg":"shutting down"`, `"msg":"stopped"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log has no %s line", want)
		}
	}
	if strings.Contains(log, `"level":"ERROR"`) {
		t.Errorf("ERROR lines during a graceful shutdown:\n%s", log)
	}
	t.Logf("SIGTERM under load: %d ok, %d tool errors, %d refused, %d lost, %d reset before accepted, %d refused connections after close",
		counts.ok.Load(), counts.toolErrors.Load(), counts.refused.Load(), counts.lost.Load(), counts.unaccepted.Load(), counts.transport.Load())
}

func TestReliability_soak(t *testing.T) {
	h := startServer(t)
	d := 5 * time.Second
	if *relLong {
		d = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	base := settledGoroutines()
	client := &http.Client{Timeout: 20 * time.Second}
	var counts relLoadCounts
	var wg sync.WaitGroup
	for w := range 8 {
		token := h.Tokens[[]string{"alice", "bob", "carol", "root"}[w%4]]
		wg.Go(func() { relLoad(ctx, client, h.CE, token, w, &counts) })
	}
	wg.Wait()
	client.CloseIdleConnections()
	if n := counts.failed.Load() + counts.transport.Load() + counts.lost.Load() + counts.refused.Load(); n != 0 {
		t.Errorf("soak: %d requests failed (%d HTTP errors, %d transport, %d refused)", n,
			counts.failed.Load(), counts.transport.Load(), counts.refused.Load())
	}
	if counts.ok.Load() == 0 {
		t.Fatal("soak: no request succeeded")
	}
	// Nothing is left running: goroutines come back to where they were.
	waitGoroutinesAtMost(t, base+10)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("soak %v: %d ok, %d tool errors; goroutines %d (before %d); heap %d MiB",
		d, counts.ok.Load(), counts.toolErrors.Load(), runtime.NumGoroutine(), base, m.HeapAlloc>>20)
}

func TestReliability_isolationSweep(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	toolsAddUser(t, h, "outsider")
	// acme/secret-plans is private: alice and root are members; bob, carol
	// and a user who belongs to nothing are not. Whatever they ask about
	// it must read exactly as an object that does not exist.
	hidden, missing := "acme/secret-plans", "acme/no-such-project"
	reads := []struct {
		tool string
		args func(project string) map[string]any
	}{
		{"get_issue", func(p string) map[string]any { return map[string]any{"id": p, "issue_iid": 1} }},
		{"get_merge_request", func(p string) map[string]any { return map[string]any{"id": p, "merge_request_iid": 1} }},
		{"get_merge_request_commits", func(p string) map[string]any { return map[string]any{"id": p, "merge_request_iid": 1} }},
		{"get_merge_request_diffs", func(p string) map[string]any { return map[string]any{"id": p, "merge_request_iid": 1} }},
		{"get_merge_request_pipelines", func(p string) map[string]any { return map[string]any{"id": p, "merge_request_iid": 1} }},
		{"get_pipeline_jobs", func(p string) map[string]any { return map[string]any{"id": p, "pipeline_id": 1} }},
		{"get_workitem_notes", func(p string) map[string]any { return map[string]any{"project_id": p, "work_item_iid": 1} }},
		{"create_issue", func(p string) map[string]any { return map[string]any{"id": p, "title": "leak?"} }},
		{"get_project", func(p string) map[string]any { return map[string]any{"project_id": p} }},
		{"list_project_members", func(p string) map[string]any { return map[string]any{"project_id": p, "include_inherited": true} }},
		{"save_note", func(p string) map[string]any {
			return map[string]any{"project_id": p, "work_item_iid": 1, "body": "leak?"}
		}},
	}
	pairs := 0
	for _, user := range []string{"bob", "carol", "outsider"} {
		for _, r := range reads {
			for iid := 1; iid <= 3; iid++ {
				args, missingArgs := r.args(hidden), r.args(missing)
				for _, k := range []string{"issue_iid", "merge_request_iid", "work_item_iid"} {
					if _, ok := args[k]; ok {
						args[k], missingArgs[k] = iid, iid
					}
				}
				t.Run(fmt.Sprintf("%s %s %d", user, r.tool, iid), func(t *testing.T) {
					h.toolsSameAsMissing(t, ce, user, r.tool, args, missingArgs)
				})
				pairs++
			}
		}
	}
	// Searches never return what only others may see.
	searches := 0
	for _, user := range []string{"bob", "carol", "outsider"} {
		for _, scope := range []string{"issues", "work_items", "merge_requests", "projects", "groups", "notes", "milestones", "wiki_blobs", "users"} {
			for _, term := range []string{"nebula", "secret", "roadmap", "plan", "a", "2027"} {
				r := h.toolsCall(t, ce, "legacy", user, "search", map[string]any{"scope": scope, "search": term})
				relExpectClean(t, "search "+scope+" "+term, r)
				if strings.Contains(string(r.Body), "secret-plans") {
					t.Errorf("%s searching %s for %q sees acme/secret-plans: %.300s", user, scope, term, r.Body)
				}
				searches++
			}
		}
	}
	t.Logf("isolation sweep: %d private-vs-missing pairs, %d searches", pairs, searches)
}
