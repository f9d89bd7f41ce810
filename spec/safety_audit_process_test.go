package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// TestSafety_auditSIGTERMProcess: the glmcp binary, driven by concurrent
// clients, gets SIGTERM in the middle of the load. Every call a client got
// an answer to has exactly one audit event in the store (matched by its
// request id): none lost on the way out, none written twice. The calls
// cover the outcomes and both ways into the chain (a call refused before
// its params could be read, one resolved by the target link, whose event
// names the project's path although the arguments name its id).
func TestSafety_auditSIGTERMProcess(t *testing.T) {
	h := startServer(t)
	flags := []string{"--secret", h.Cfg.Secret}
	if h.Env.Embedded {
		flags = append(flags, "--data-dir", h.Cfg.DataDir)
	} else {
		flags = append(flags, "--database-url", h.Cfg.DatabaseURL, "--repositories-path", h.Cfg.RepositoriesPath)
	}
	endpoint, cmd := startServeCmd(t, flags, nil)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	kinds := []map[string]any{
		{"name": "get_project", "arguments": map[string]any{"project_id": mcp.ID}},            // success, resolved target
		{"name": "get_project", "arguments": map[string]any{"project_id": "gitlab-org/nope"}}, // tool error
		{"name": "no_such_tool", "arguments": map[string]any{"x": 1}},                         // unknown tool
		{"name": 5, "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp"}},       // params that do not fit
		{"name": "save_note", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, // secret push protection
			"body": "try " + h.Tokens["bob"]}},
	}
	client := &http.Client{Timeout: time.Minute}
	// call sends call n and reports whether an answer (a JSON-RPC
	// envelope) came back.
	call := func(n int) bool {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": kinds[n%len(kinds)]})
		req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return false
		}
		req.Header.Set("Authorization", "Bearer "+h.Tokens["alice"])
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Request-Id", fmt.Sprintf("sigterm-%d", n))
		res, err := client.Do(req)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		var env struct {
			JSONRPC string `json:"jsonrpc"`
		}
		return json.NewDecoder(res.Body).Decode(&env) == nil && env.JSONRPC == "2.0"
	}

	const before = 1000 // answered before the signal; the load goes on through it
	var (
		next     atomic.Int64
		count    atomic.Int64
		mu       sync.Mutex
		answered = map[string]bool{}
		wg       sync.WaitGroup
		stop     = make(chan struct{})
		signaled = make(chan struct{})
	)
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := int(next.Add(1)) - 1
				if call(n) {
					mu.Lock()
					answered[fmt.Sprintf("sigterm-%d", n)] = true
					mu.Unlock()
					if count.Add(1) == before {
						close(signaled)
					}
				}
			}
		})
	}
	select {
	case <-signaled:
	case err := <-exited:
		t.Fatalf("glmcp serve exited before the signal: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-time.After(2 * time.Minute):
		t.Fatal("glmcp serve still running 2 minutes after SIGTERM")
	}
	close(stop)
	wg.Wait()
	if waitErr != nil {
		t.Fatalf("glmcp serve exited with %v after SIGTERM", waitErr)
	}

	events, err := h.Env.Store.Audit.ListAuditEvents(context.Background(), models.AuditFilter{Username: "alice", Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range events {
		if !strings.HasPrefix(e.CorrelationID, "sigterm-") {
			continue
		}
		seen[e.CorrelationID]++
		var n int
		fmt.Sscanf(e.CorrelationID, "sigterm-%d", &n)
		if n%len(kinds) == 0 && (e.Target != mcp.PathWithNamespace || e.TargetType != "project" || e.Outcome != models.AuditSuccess) {
			t.Errorf("event of a resolved get_project: target %q (%s), outcome %s; want %q (project), success",
				e.Target, e.TargetType, e.Outcome, mcp.PathWithNamespace)
		}
		if n%len(kinds) == 4 && e.Outcome != models.AuditRefused {
			t.Errorf("event of a refused save_note: outcome %s, want refused", e.Outcome)
		}
	}
	lost, doubled := 0, 0
	for id := range answered {
		switch seen[id] {
		case 0:
			lost++
		case 1:
		default:
			doubled++
		}
	}
	for id, c := range seen {
		if c > 1 && !answered[id] {
			doubled++
		}
	}
	if len(answered) < before || lost != 0 || doubled != 0 {
		t.Errorf("%d calls answered (want ≥ %d), %d of them without an event, %d events doubled", len(answered), before, lost, doubled)
	}
	t.Logf("%d calls sent, %d answered, %d events (the rest were refused by the stopping server)", next.Load(), len(answered), len(seen))
}
