package spec

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

// Server names of the two route groups (DESIGN.md §1).
const (
	wireCEServerName = "GitLab MCP Server"
	wireEEServerName = "GitLab Orbit MCP Server"
)

// withMaxBodyBytes sets the request body limit of both groups.
func withMaxBodyBytes(n int64) option { return func(c *app.Config) { c.MaxBodyBytes = n } }

// group is one MCP route group of a running harness.
type wireGroup struct {
	Name       string // "CE" or "EE"
	URL        string // endpoint URL
	Path       string // endpoint path
	ServerName string // serverInfo.name
}

// groups returns the route groups h serves: CE, and EE when started
// withEE().
func wireGroups(h *harness) []wireGroup {
	gs := []wireGroup{{Name: "CE", URL: h.CE, Path: cePath, ServerName: wireCEServerName}}
	if h.Cfg.Edition == models.EditionEE {
		gs = append(gs, wireGroup{Name: "EE", URL: h.EE, Path: eePath, ServerName: wireEEServerName})
	}
	return gs
}

// wireEras are the two protocol wireEras a row runs in.
var wireEras = []string{"legacy", "modern"}

// send sends one request exactly as given: header names are written as
// stored in hdr (not canonicalised), host (when not "") replaces the Host
// header. Content-Type and Accept are defaulted as a conforming client
// sends them unless hdr sets them.
func wireSend(t testing.TB, method, url, body string, hdr http.Header, host string) *response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = http.Header{}
	for k, v := range hdr {
		req.Header[k] = append([]string(nil), v...)
	}
	if hdr.Get("Content-Type") == "" && body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if hdr.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if host != "" {
		req.Host = host
	}
	return send(t, req)
}

// modernRequest returns the body and headers of a well-formed Modern
// request as user (params._meta defaulted to modernMeta, mirrored headers
// filled in). Callers may then break one thing.
func (h *harness) wireModernRequest(t testing.TB, user string, id any, method string, params map[string]any) (string, http.Header) {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = modernMeta()
	}
	hd := auth(h.Tokens[user])
	for k, v := range modernHeaders(method, params) {
		hd.Set(k, v)
	}
	return envelope(t, id, method, params), hd
}

// eraRequest returns a well-formed request of era ("legacy" or "modern")
// as user.
func (h *harness) wireRequest(t testing.TB, era, user string, id any, method string, params map[string]any) (string, http.Header) {
	t.Helper()
	if era == "modern" {
		return h.wireModernRequest(t, user, id, method, params)
	}
	var p any
	if params != nil {
		p = params
	}
	return envelope(t, id, method, p), auth(h.Tokens[user])
}

// call sends a well-formed request of era as user to endpoint.
func (h *harness) wireCall(t testing.TB, era, endpoint, user string, id any, method string, params map[string]any) *response {
	t.Helper()
	body, hd := h.wireRequest(t, era, user, id, method, params)
	return do(t, http.MethodPost, endpoint, body, hd)
}

// eraRev is the schema revision that validates era's responses.
func wireRev(era string) string {
	if era == "modern" {
		return revModern
	}
	return rev20251125
}

// members decodes the top-level members of a JSON object body.
func wireMembers(t testing.TB, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, body)
	}
	return m
}

// expectID asserts the raw id member of body: want "" means no id member
// at all.
func wireExpectID(t testing.TB, body []byte, want string) {
	t.Helper()
	got, ok := wireMembers(t, body)["id"]
	switch {
	case want == "" && ok:
		t.Errorf("id = %s, want no id member; body %s", got, body)
	case want != "" && !ok:
		t.Errorf("no id member, want %s; body %s", want, body)
	case want != "" && string(got) != want:
		t.Errorf("id = %s, want %s (same type and spelling)", got, want)
	}
}

// wireValidateError validates the error member of body against the
// revision's definition def (e.g. "MethodNotFoundError", an error object).
func wireValidateError(t testing.TB, rev, def string, body []byte) {
	t.Helper()
	raw, ok := wireMembers(t, body)["error"]
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
func wireExpectModern(t testing.TB, res map[string]any, serverName string) {
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
func wireExpectLegacy(t testing.TB, res map[string]any) {
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
func wireExpectCache(t testing.TB, res map[string]any, scope string) {
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

// expectStatus fails unless r has status.
func wireExpectStatus(t testing.TB, r *response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// toolNames returns the names in a tools/list result.
func wireToolNames(t testing.TB, res map[string]any) []string {
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
