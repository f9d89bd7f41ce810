package spec

import (
	"net/http"
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
