package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
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

// confBound bounds every wait for a stream event (liveness, not speed).
const confBound = 10 * time.Second

// withConformanceFixtures turns the conformance fixtures on.
func withConformanceFixtures() option {
	return func(c *app.Config) { c.ConformanceFixtures = true }
}

// withStoreOf serves from h's store (its database or data directory).
func withStoreOf(h *harness) option {
	return func(c *app.Config) { c.DatabaseURL, c.DataDir = h.Cfg.DatabaseURL, h.Cfg.DataDir }
}

// confMeta is a valid Modern _meta with the given client capabilities and
// extra keys.
func confMeta(caps map[string]any, extra map[string]any) map[string]any {
	m := modernMeta()
	if caps != nil {
		m["io.modelcontextprotocol/clientCapabilities"] = caps
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// confCall sends tools/call of name as alice on the CE group: Legacy when
// meta is nil (legacyMeta, if any, is then the request's _meta), Modern
// otherwise. header adds headers.
func confCall(t testing.TB, h *harness, id any, name string, args map[string]any, meta, legacyMeta map[string]any, header map[string]string) *response {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": name, "arguments": args}
	hd := auth(h.Tokens["alice"])
	if meta != nil {
		params["_meta"] = meta
		for k, v := range modernHeaders("tools/call", params) {
			hd.Set(k, v)
		}
	} else if legacyMeta != nil {
		params["_meta"] = legacyMeta
	}
	for k, v := range header {
		hd.Set(k, v)
	}
	return do(t, http.MethodPost, h.CE, envelope(t, id, "tools/call", params), hd)
}

// confToolNames lists the tool names of a tools/list response.
func confToolNames(t testing.TB, r *response) []string {
	t.Helper()
	tools, _ := result(t, r)["tools"].([]any)
	var names []string
	for _, tool := range tools {
		m, _ := tool.(map[string]any)
		n, _ := m["name"].(string)
		names = append(names, n)
	}
	return names
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

// confSSE returns the data of each event of a complete event-stream body,
// failing unless the response is one.
func confSSE(t testing.TB, r *response) [][]byte {
	t.Helper()
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q; want a 200 event stream: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var out [][]byte
	for _, block := range strings.Split(string(r.Body), "\n\n") {
		var data []string
		for _, line := range strings.Split(block, "\n") {
			if rest, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, rest)
			}
		}
		if data != nil {
			out = append(out, []byte(strings.Join(data, "\n")))
		}
	}
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

// confStream is an open event stream read line by line in the background;
// Next returns the data of the next event.
type confStream struct {
	events chan []byte
	cancel context.CancelFunc
}

// confOpen POSTs a Modern request and returns its event stream (failing if
// the response is not one). The stream is closed when the test ends.
func confOpen(t testing.TB, url, token string, id any, method string, params map[string]any) *confStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(envelope(t, id, method, params)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = auth(token)
	for k, v := range modernHeaders(method, params) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		res.Body.Close()
		t.Fatalf("%s: status %d Content-Type %q, want a 200 event stream", method, res.StatusCode, ct)
	}
	s := &confStream{events: make(chan []byte, 16), cancel: cancel}
	go func() {
		defer res.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case s.events <- []byte(rest):
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return s
}

// Next returns the next event's data, failing if none comes within
// confBound or the stream ends.
func (s *confStream) Next(t testing.TB) []byte {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(confBound):
		t.Fatalf("no event within %s", confBound)
	}
	return nil
}

// confInitParams are Legacy initialize params for version.
func confInitParams(version string) map[string]any {
	return map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec", "version": "1.0.0"}}
}

// confMember returns one top-level member of a JSON-RPC message, raw.
func confMember(t testing.TB, msg []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("message is not a JSON object: %v: %s", err, msg)
	}
	return m[name]
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
