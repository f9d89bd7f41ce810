package spec

import (
	"net/http"
	"strings"
	"testing"
)

// TestHarness_smoke proves the harness: both eras answer on a fresh store.
func TestHarness_smoke(t *testing.T) {
	h := startServer(t)
	r := h.send(t, call{User: "alice", Method: "initialize", Params: map[string]any{
		"protocolVersion": rev20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec", "version": "1"},
	}})
	if r.Status != http.StatusOK {
		t.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	validateResult(t, rev20251125, "InitializeResult", r.Body)

	r = h.send(t, call{Era: modern, User: "alice", ID: "d", Method: "server/discover"})
	if r.Status != http.StatusOK {
		t.Fatalf("discover: %d %s", r.Status, r.Body)
	}
	validateResult(t, revModern, "DiscoverResult", r.Body)

	r = h.send(t, call{Era: modern, User: "alice", ID: 2, Method: "tools/list"})
	validateResult(t, revModern, "ListToolsResult", r.Body)
	if res := r.result(t); res["cacheScope"] != "private" {
		t.Fatalf("cacheScope = %v", res["cacheScope"])
	}
	r = h.send(t, call{Body: `[]`, User: "alice"})
	r.expectError(t, http.StatusBadRequest, -32600)
}

// TestHarness_metrics: /metrics serves the request, latency and tool-call
// series of this server (its own collectors) and the Go runtime's.
func TestHarness_metrics(t *testing.T) {
	h := startServer(t)
	h.send(t, call{Era: modern, User: "alice", Method: "tools/call",
		Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}}).ok(t)
	r := h.send(t, call{Verb: http.MethodGet, URL: h.URL + "/metrics"})
	r.expectStatus(t, http.StatusOK)
	for _, want := range []string{
		`glmcp_http_requests_total{era="modern",route="/api/v4/mcp",rpc_method="tools/call",status="200"} 1`,
		`glmcp_http_request_duration_seconds_count{route="/api/v4/mcp",rpc_method="tools/call"} 1`,
		`glmcp_tool_calls_total{outcome="ok",status="200",tool="get_mcp_server_version"} 1`,
		"# TYPE go_goroutines gauge",
	} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, r.Body)
		}
	}
}
