package spec

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Audit events (doc/security.md, "Audit events"): every tools/call leaves
// one, written off the request path and flushed on shutdown.

// safetyAuditCall sends one tools/call of kind i%4 (success, tool error,
// unknown tool, refused by secret push protection) and reports whether an
// answer came back.
func safetyAuditCall(t *testing.T, h *harness, i int) bool {
	var params map[string]any
	switch i % 4 {
	case 0:
		params = map[string]any{"name": "get_project", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp"}}
	case 1:
		params = map[string]any{"name": "get_project", "arguments": map[string]any{"project_id": "gitlab-org/nope"}}
	case 2:
		params = map[string]any{"name": "no_such_tool", "arguments": map[string]any{"x": 1}}
	case 3:
		params = map[string]any{"name": "save_note", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp",
			"work_item_iid": 1, "body": "try " + h.Tokens["bob"]}}
	}
	req := h.request(t, context.Background(), call{User: "alice", Method: "tools/call", Params: params})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	return res.StatusCode == http.StatusOK || res.StatusCode == http.StatusBadRequest
}

// TestSafety_auditEvents: 1,000 calls leave 1,000 events with the right
// outcome, target and argument names, never an argument value.
func TestSafety_auditEvents(t *testing.T) {
	h := startServer(t)
	const n = 1000
	var wg sync.WaitGroup
	var answered atomic.Int64
	next := atomic.Int64{}
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if safetyAuditCall(t, h, i) {
					answered.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if answered.Load() != n {
		t.Fatalf("%d of %d calls answered", answered.Load(), n)
	}
	// The writer flushes a partial batch within its interval; Stop
	// flushes the rest.
	h.Server.BeginShutdown()
	h.HTTP.Close()
	h.Server.Stop()
	st := h.Env.Store
	if got := auditEventCount(t, st); got != n {
		t.Fatalf("audit events = %d, want %d", got, n)
	}
	stored, err := st.Audit.ListAuditEvents(context.Background(), models.AuditFilter{Limit: 1 << 20})
	if err != nil || int64(len(stored)) != n {
		t.Fatalf("audit list = %d events, %v; want %d", len(stored), err, n)
	}
	outcomes := map[models.AuditOutcome]int64{}
	for _, e := range stored {
		outcomes[e.Outcome]++
	}
	for outcome, want := range map[models.AuditOutcome]int64{models.AuditSuccess: n / 4, models.AuditToolError: n / 4,
		models.AuditFailed: n / 4, models.AuditRefused: n / 4} {
		if got := outcomes[outcome]; got != want {
			t.Errorf("outcome %s: %d events, want %d", outcome, got, want)
		}
	}
	events, err := st.Audit.ListAuditEvents(context.Background(), models.AuditFilter{Username: "alice", Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.EventName != "ai_tool_invoked" || e.UserID == 0 || e.TokenID == 0 || e.CorrelationID == "" || e.Tool == "" {
			t.Fatalf("incomplete event %+v", e)
		}
		if strings.Contains(fmt.Sprintf("%+v", e), "glpat-") || strings.Contains(e.ArgumentNames, "try") {
			t.Fatalf("an event holds an argument value: %+v", e)
		}
		if e.Tool == "save_note" && (e.ArgumentNames != "body,project_id,work_item_iid" || e.Target != "gitlab-org/gitlab-mcp" || e.TargetType != "project") {
			t.Errorf("save_note event: %+v", e)
		}
	}
}

// TestSafety_auditShutdownUnderLoad: a graceful shutdown while calls are
// arriving (what SIGTERM does: stop taking requests, wait for those in
// flight, stop the workers) loses no event: every call answered has its
// event.
func TestSafety_auditShutdownUnderLoad(t *testing.T) {
	h := startServer(t)
	var wg sync.WaitGroup
	var answered, sent atomic.Int64
	stop := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := w; ; i += 8 {
				select {
				case <-stop:
					return
				default:
				}
				sent.Add(1)
				if safetyAuditCall(t, h, i) {
					answered.Add(1)
				}
			}
		})
	}
	for answered.Load() < 300 {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.Server.BeginShutdown()
	if err := h.HTTP.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	h.Server.Stop()
	close(stop)
	wg.Wait()
	got := auditEventCount(t, h.Env.Store)
	if got != answered.Load() {
		t.Errorf("audit events = %d, calls answered = %d (sent %d): events lost or invented", got, answered.Load(), sent.Load())
	}
	t.Logf("%d calls answered before and during shutdown, %d events", answered.Load(), got)
}

// TestSafety_auditOff: GLMCP_AUDIT=false (what scripts/bench compares
// against) leaves the audit link out: calls of every outcome record
// nothing.
func TestSafety_auditOff(t *testing.T) {
	h := startServer(t, func(c *app.Config) { c.Audit = false })
	for i := range 8 {
		if !safetyAuditCall(t, h, i) {
			t.Fatalf("call %d not answered", i)
		}
	}
	h.Server.BeginShutdown()
	h.HTTP.Close()
	h.Server.Stop()
	if got := auditEventCount(t, h.Env.Store); got != 0 {
		t.Errorf("audit events with GLMCP_AUDIT=false: %d, want 0", got)
	}
}

// TestSafety_auditUnstorableText: a call whose tool name and argument name
// hold a NUL (which PostgreSQL's text cannot) still leaves its event, with
// U+FFFD in their place, and does not fail the batch of the calls around
// it.
func TestSafety_auditUnstorableText(t *testing.T) {
	h := startServer(t)
	for _, params := range []map[string]any{
		{"name": "get_project", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp"}},
		{"name": "get\x00project", "arguments": map[string]any{"project\x00id": "gitlab-org/gitlab-mcp"}},
		{"name": "get_project", "arguments": map[string]any{"project_id": "gitlab-org/gitlab-mcp"}},
	} {
		req := h.request(t, context.Background(), call{User: "alice", Method: "tools/call", Params: params})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	h.Server.BeginShutdown()
	h.HTTP.Close()
	h.Server.Stop()
	events, err := h.Env.Store.Audit.ListAuditEvents(context.Background(), models.AuditFilter{Username: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 {
		t.Fatalf("%d audit events, want 3: %+v", len(events), events)
	}
	if e := events[1]; e.Tool != "get\uFFFDproject" || e.ArgumentNames != "project\uFFFDid" {
		t.Fatalf("the NUL call's event = %+v; want U+FFFD for the NULs", e)
	}
}

// auditEventCount is the number of audit events in st: the sum of its
// batch rows' counts.
func auditEventCount(t *testing.T, st *store.Store) int64 {
	t.Helper()
	return storetest.Int(t, st, "SELECT COALESCE(SUM(n), 0) FROM audit_event_batches")
}
