package spec

import (
	"net/http"
	"testing"
)

// TestHarness_smoke proves the harness: both eras answer on a fresh store.
func TestHarness_smoke(t *testing.T) {
	h := startServer(t)
	r := h.legacy(t, h.CE, "alice", 1, "initialize", map[string]any{
		"protocolVersion": rev20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec", "version": "1"},
	})
	if r.Status != http.StatusOK {
		t.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	validateResult(t, rev20251125, "InitializeResult", r.Body)

	r = h.modern(t, h.CE, "alice", "d", "server/discover", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("discover: %d %s", r.Status, r.Body)
	}
	validateResult(t, revModern, "DiscoverResult", r.Body)

	r = h.modern(t, h.CE, "alice", 2, "tools/list", nil)
	validateResult(t, revModern, "ListToolsResult", r.Body)
	if res := result(t, r); res["cacheScope"] != "private" {
		t.Fatalf("cacheScope = %v", res["cacheScope"])
	}
	r = do(t, http.MethodPost, h.CE, `[]`, auth(h.Tokens["alice"]))
	expectError(t, r, revModern, http.StatusBadRequest, -32600)
}
