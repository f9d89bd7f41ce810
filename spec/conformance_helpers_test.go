package spec

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/app/conformance"
)

// confNames are the conformance fixtures, in name order (sorted: see
// confFixturesIn).
var confNames = []string{
	"json_schema_2020_12_tool", "test_audio_content", "test_embedded_resource",
	"test_error_handling", "test_image_content", "test_input_required_result_capabilities",
	"test_input_required_result_elicitation", "test_input_required_result_list_roots", "test_input_required_result_multi_round",
	"test_input_required_result_multiple_inputs", "test_input_required_result_request_state", "test_input_required_result_sampling",
	"test_input_required_result_tampered_state", "test_logging_tool", "test_missing_capability",
	"test_multiple_content_types", "test_simple_text", "test_streaming_elicitation",
	"test_tool_with_logging", "test_tool_with_progress", "test_trigger_tool_change",
	"test_x_mcp_header",
}

// withConformanceFixtures turns the conformance fixtures on.
func withConformanceFixtures() option {
	return func(c *app.Config) { c.Fixtures = conformance.Fixtures() }
}

// withStoreOf serves from h's store (its database or data directory).
func withStoreOf(h *harness) option {
	return func(c *app.Config) {
		c.DatabaseURL, c.DataDir, c.RepositoriesPath = h.Cfg.DatabaseURL, h.Cfg.DataDir, h.Cfg.RepositoriesPath
	}
}

// confCall sends tools/call of name as alice on the CE group: Legacy when
// meta is nil (legacyMeta, if any, is then the request's _meta), Modern
// otherwise. header adds headers.
func confCall(t testing.TB, h *harness, id any, name string, args map[string]any, meta, legacyMeta map[string]any, header map[string]string) *response {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	c := call{User: "alice", ID: id, Method: "tools/call", Params: map[string]any{"name": name, "arguments": args}, Header: http.Header{}}
	if meta != nil {
		c.Era = modern
		c.Params["_meta"] = meta
	} else if legacyMeta != nil {
		c.Params["_meta"] = legacyMeta
	}
	for k, v := range header {
		c.Header.Set(k, v)
	}
	return h.send(t, c)
}

// confFixturesIn returns the fixture names found in names, sorted.
func confFixturesIn(names []string) []string {
	var out []string
	for _, n := range names {
		i := sort.SearchStrings(confNames, n)
		if i < len(confNames) && confNames[i] == n {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// confMethod returns a message's method ("" for a response).
func confMethod(t testing.TB, msg []byte) string {
	t.Helper()
	var m struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("event is not JSON: %v: %s", err, msg)
	}
	return m.Method
}

// confParams decodes a notification's params.
func confParams(t testing.TB, msg []byte) map[string]any {
	t.Helper()
	var m struct {
		Params map[string]any `json:"params"`
	}
	d := json.NewDecoder(bytes.NewReader(msg))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("event is not JSON: %v: %s", err, msg)
	}
	return m.Params
}

// confInitParams are Legacy initialize params for version.
func confInitParams(version string) map[string]any {
	return map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec", "version": "1.0.0"}}
}

// confSameJSON reports whether two JSON documents are equal as values.
func confSameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}
