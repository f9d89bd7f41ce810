package spec

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

// Route groups, and assertions shared by the specs on top of the response
// reader (client_test.go).

// Server names of the two route groups (doc/endpoint.md, "Route groups").
const (
	ceServerName = "Official GitLab MCP Server" // GitLab's serverInfo.name
	eeServerName = "GitLab Orbit MCP Server"
)

// withMaxBodyBytes sets the request body limit of both groups.
func withMaxBodyBytes(n int64) option { return func(c *app.Config) { c.MaxBodyBytes = n } }

// group is one MCP route group of a running harness.
type group struct {
	Name       string // "CE" or "EE"
	URL        string // endpoint URL
	Path       string // endpoint path
	ServerName string // serverInfo.name
}

// groups returns the route groups h serves: CE, and EE when started
// withEE().
func (h *harness) groups() []group {
	gs := []group{{Name: "CE", URL: h.CE, Path: cePath, ServerName: ceServerName}}
	if h.Cfg.Edition == models.EditionEE {
		gs = append(gs, group{Name: "EE", URL: h.EE, Path: eePath, ServerName: eeServerName})
	}
	return gs
}

// wireValidateError validates the error member of body against the
// revision's definition def (e.g. "MethodNotFoundError", an error object).
func validateError(t testing.TB, rev, def string, body []byte) {
	t.Helper()
	raw, ok := members(t, body)["error"]
	if !ok {
		t.Fatalf("no error member: %s", body)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := schemaDef(t, rev, def).Validate(inst); err != nil {
		t.Fatalf("error does not validate against %s %s:\n%v\n%s", rev, def, err, body)
	}
}

// expectModernResult asserts the fields every Modern result carries:
// resultType "complete" and _meta serverInfo {name, version} of the group.
func expectModernResult(t testing.TB, res map[string]any, serverName string) {
	t.Helper()
	if res["resultType"] != "complete" {
		t.Errorf("resultType = %v, want complete", res["resultType"])
	}
	meta, _ := res["_meta"].(map[string]any)
	si, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
	if si == nil {
		t.Fatalf(`no _meta["io.modelcontextprotocol/serverInfo"] in %v`, res)
	}
	if si["name"] != serverName || si["version"] != app.Version {
		t.Errorf("serverInfo = %v, want name %q version %q", si, serverName, app.Version)
	}
}

// expectLegacyResult asserts a Legacy result carries none of the
// Modern-only fields.
func expectLegacyResult(t testing.TB, res map[string]any) {
	t.Helper()
	for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
		if v, ok := res[k]; ok {
			t.Errorf("Legacy result has %s = %v", k, v)
		}
	}
	if meta, ok := res["_meta"].(map[string]any); ok {
		if _, ok := meta["io.modelcontextprotocol/serverInfo"]; ok {
			t.Errorf("Legacy result has _meta serverInfo: %v", meta)
		}
	}
}

// expectCacheHints asserts ttlMs (an integer ≥ 0) and cacheScope.
func expectCache(t testing.TB, res map[string]any, scope string) {
	t.Helper()
	n, ok := res["ttlMs"].(json.Number)
	if !ok {
		t.Fatalf("ttlMs = %v (%T), want an integer", res["ttlMs"], res["ttlMs"])
	}
	if v, err := n.Int64(); err != nil || v < 0 {
		t.Errorf("ttlMs = %s, want an integer ≥ 0", n)
	}
	if res["cacheScope"] != scope {
		t.Errorf("cacheScope = %v, want %q", res["cacheScope"], scope)
	}
}

// toolNames returns the names in a tools/list result.
func toolNames(t testing.TB, res map[string]any) []string {
	t.Helper()
	list, ok := res["tools"].([]any)
	if !ok {
		t.Fatalf("tools = %T, want an array", res["tools"])
	}
	var names []string
	for _, x := range list {
		m, _ := x.(map[string]any)
		n, _ := m["name"].(string)
		names = append(names, n)
	}
	return names
}
