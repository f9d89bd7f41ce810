package spec

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// Ensure the conformance fixtures exist only with the flag: the default
// server lists none, calls none, and declares no logging on either era.
func TestConformance_fixturesOffByDefault(t *testing.T) {
	h := startServer(t)
	r := h.send(t, call{User: "alice", Method: "tools/list"})
	validateResult(t, rev20251125, "ListToolsResult", r.Body)
	if got := confFixturesIn(toolNames(t, r.result(t))); got != nil {
		t.Errorf("Legacy tools/list lists fixtures %v", got)
	}
	r = h.send(t, call{Era: modern, User: "alice", ID: 2, Method: "tools/list"})
	validateResult(t, revModern, "ListToolsResult", r.Body)
	if got := confFixturesIn(toolNames(t, r.result(t))); got != nil {
		t.Errorf("Modern tools/list lists fixtures %v", got)
	}
	r = confCall(t, h, 3, "test_simple_text", nil, metaWith(nil, nil), nil, nil)
	r.expectError(t, http.StatusBadRequest, -32602)
	r = confCall(t, h, 4, "test_simple_text", nil, nil, nil, nil)
	r.expectError(t, rpcStatus(legacy, http.StatusBadRequest), -32602)

	init := h.send(t, call{User: "alice", ID: 5, Method: "initialize", Params: confInitParams("2025-11-25")})
	validateResult(t, rev20251125, "InitializeResult", init.Body)
	if caps := init.result(t)["capabilities"].(map[string]any); caps["logging"] != nil {
		t.Errorf("Legacy initialize declares logging: %v", caps)
	}
	disc := h.send(t, call{Era: modern, User: "alice", ID: 6, Method: "server/discover"})
	validateResult(t, revModern, "DiscoverResult", disc.Body)
	if caps := disc.result(t)["capabilities"].(map[string]any); caps["logging"] != nil {
		t.Errorf("server/discover declares logging: %v", caps)
	}
	r = h.send(t, call{User: "alice", ID: 7, Method: "logging/setLevel", Params: map[string]any{"level": "info"}})
	r.expectError(t, rpcStatus(legacy, http.StatusNotFound), -32601)
}

// Ensure the flag lists every fixture on both eras and groups, with the
// logging capability, and that the fixtures are never stored: a server
// without the flag on the same store lists none.
func TestConformance_fixturesOn(t *testing.T) {
	h := startServer(t, withEE(), withConformanceFixtures())
	for _, url := range []string{h.CE, h.EE} {
		r := h.send(t, call{URL: url, User: "alice", Method: "tools/list"})
		validateResult(t, rev20251125, "ListToolsResult", r.Body)
		if got := confFixturesIn(toolNames(t, r.result(t))); !reflect.DeepEqual(got, confNames) {
			t.Errorf("%s Legacy tools/list fixtures = %v, want %v", url, got, confNames)
		}
		r = h.send(t, call{Era: modern, URL: url, User: "alice", ID: 2, Method: "tools/list"})
		validateResult(t, revModern, "ListToolsResult", r.Body)
		if got := confFixturesIn(toolNames(t, r.result(t))); !reflect.DeepEqual(got, confNames) {
			t.Errorf("%s Modern tools/list fixtures = %v, want %v", url, got, confNames)
		}
	}
	init := h.send(t, call{User: "alice", ID: 3, Method: "initialize", Params: confInitParams("2025-11-25")})
	validateResult(t, rev20251125, "InitializeResult", init.Body)
	if caps := init.result(t)["capabilities"].(map[string]any); !reflect.DeepEqual(caps["logging"], map[string]any{}) {
		t.Errorf("Legacy initialize capabilities = %v, want logging {}", caps)
	}
	disc := h.send(t, call{Era: modern, User: "alice", ID: 4, Method: "server/discover"})
	validateResult(t, revModern, "DiscoverResult", disc.Body)
	if caps := disc.result(t)["capabilities"].(map[string]any); !reflect.DeepEqual(caps["logging"], map[string]any{}) {
		t.Errorf("server/discover capabilities = %v, want logging {}", caps)
	}

	rows, err := h.Env.Store.Tools.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if got := confFixturesIn([]string{row.Name}); got != nil {
			t.Errorf("fixture %s was written to the store", row.Name)
		}
	}
	plain := startServer(t, withStoreOf(h))
	r := plain.send(t, call{Era: modern, User: "alice", ID: 5, Method: "tools/list"})
	validateResult(t, revModern, "ListToolsResult", r.Body)
	if got := confFixturesIn(toolNames(t, r.result(t))); got != nil {
		t.Errorf("a server without the flag on the same store lists %v", got)
	}
}

// Ensure the content fixtures render every block kind, valid on both eras.
func TestConformance_contentBlocks(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	want := map[string]string{
		"test_simple_text": `[{"type":"text","text":"This is a simple text response for testing."}]`,
		"test_embedded_resource": `[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain",` +
			`"text":"This is an embedded resource content."}}]`,
		"test_error_handling": `[{"type":"text","text":"This tool intentionally returns an error for testing"}]`,
	}
	kinds := map[string][]string{
		"test_image_content":          {"image"},
		"test_audio_content":          {"audio"},
		"test_multiple_content_types": {"text", "image", "resource"},
	}
	for _, era := range []string{rev20251125, revModern} {
		for _, name := range []string{"test_simple_text", "test_image_content", "test_audio_content",
			"test_embedded_resource", "test_multiple_content_types", "test_error_handling"} {
			t.Run(era+"/"+name, func(t *testing.T) {
				var meta map[string]any
				if era == revModern {
					meta = metaWith(nil, nil)
				}
				r := confCall(t, h, 1, name, nil, meta, nil, nil)
				if r.Status != http.StatusOK {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				validateResult(t, era, "CallToolResult", r.Body)
				var env struct {
					Result struct {
						Content []json.RawMessage `json:"content"`
						IsError bool              `json:"isError"`
					} `json:"result"`
				}
				if err := json.Unmarshal(r.Body, &env); err != nil {
					t.Fatal(err)
				}
				if env.Result.IsError != (name == "test_error_handling") {
					t.Errorf("isError = %v", env.Result.IsError)
				}
				if w, ok := want[name]; ok {
					got, _ := json.Marshal(env.Result.Content)
					if !confSameJSON(t, got, []byte(w)) {
						t.Errorf("content = %s\nwant %s", got, w)
					}
					return
				}
				var types []string
				for _, c := range env.Result.Content {
					var b struct {
						Type, Data, MimeType string
					}
					if err := json.Unmarshal(c, &b); err != nil {
						t.Fatal(err)
					}
					types = append(types, b.Type)
					if b.Type == "image" || b.Type == "audio" {
						raw, err := base64.StdEncoding.DecodeString(b.Data)
						if err != nil || len(raw) == 0 || b.MimeType == "" {
							t.Errorf("%s block without base64 data or mimeType: %s", b.Type, c)
						}
					}
				}
				if !reflect.DeepEqual(types, kinds[name]) {
					t.Errorf("content types = %v, want %v", types, kinds[name])
				}
			})
		}
	}
}

// Ensure a Modern call of a tool needing an undeclared client capability
// is refused with 400 -32021 naming it, before the tool runs; a declared
// capability, or a Legacy request (no per-request capabilities), runs it.
func TestConformance_missingCapability(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	for name, caps := range map[string]map[string]any{
		"none":          {},
		"others only":   {"elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}},
		"sampling null": {"sampling": nil},
	} {
		t.Run(name, func(t *testing.T) {
			r := confCall(t, h, 401, "test_missing_capability", nil, metaWith(caps, nil), nil, nil)
			_, data := r.expectError(t, http.StatusBadRequest, -32021)
			validateMessage(t, revModern, "MissingRequiredClientCapabilityError", r.Body)
			if id := string(members(t, r.Body)["id"]); id != "401" {
				t.Errorf("id = %s, want 401", id)
			}
			want := map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}
			if !reflect.DeepEqual(data, want) {
				t.Errorf("data = %v, want %v", data, want)
			}
		})
	}
	t.Run("declared", func(t *testing.T) {
		r := confCall(t, h, 402, "test_missing_capability", nil, metaWith(map[string]any{"sampling": map[string]any{}}, nil), nil, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		validateResult(t, revModern, "CallToolResult", r.Body)
	})
	t.Run("legacy", func(t *testing.T) {
		r := confCall(t, h, 403, "test_missing_capability", nil, nil, nil, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		validateResult(t, rev20251125, "CallToolResult", r.Body)
	})
}

// Ensure a progress token turns a fixture's progress into
// notifications/progress events before the result, on both eras; without
// one the answer is plain JSON.
func TestConformance_progress(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	for _, tc := range []struct {
		era   string
		token any
	}{{revModern, "p-1"}, {rev20251125, 7}} {
		t.Run(tc.era, func(t *testing.T) {
			var r *response
			if tc.era == revModern {
				r = confCall(t, h, 11, "test_tool_with_progress", nil, metaWith(nil, map[string]any{"progressToken": tc.token}), nil, nil)
			} else {
				r = confCall(t, h, 11, "test_tool_with_progress", nil, nil, map[string]any{"progressToken": tc.token}, nil)
			}
			events := r.events(t)
			if len(events) != 4 {
				t.Fatalf("%d events, want 3 progress + the result:\n%s", len(events), r.Body)
			}
			wantToken, _ := json.Marshal(tc.token)
			for i, p := range []string{"0", "50", "100"} {
				if m := confMethod(t, events[i]); m != "notifications/progress" {
					t.Fatalf("event %d is %q, want notifications/progress", i, m)
				}
				validateMessage(t, tc.era, "ProgressNotification", events[i])
				params := confParams(t, events[i])
				tok, _ := json.Marshal(params["progressToken"])
				if string(tok) != string(wantToken) && string(tok) != `"`+string(wantToken)+`"` {
					t.Errorf("event %d token %s, want %s", i, tok, wantToken)
				}
				if params["progress"].(json.Number).String() != p || params["total"].(json.Number).String() != "100" {
					t.Errorf("event %d params %v, want progress %s of 100", i, params, p)
				}
			}
			validateResult(t, tc.era, "CallToolResult", events[3])
			if id := string(members(t, events[3])["id"]); id != "11" {
				t.Errorf("id = %s, want 11", id)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		r := confCall(t, h, 12, "test_tool_with_progress", nil, metaWith(nil, nil), nil, nil)
		if ct := r.Header.Get("Content-Type"); r.Status != http.StatusOK || ct != "application/json" {
			t.Fatalf("status %d Content-Type %q, want 200 JSON", r.Status, ct)
		}
		validateResult(t, revModern, "CallToolResult", r.Body)
	})
}

// Ensure log messages follow the revision's rules: Modern only at or above
// the request's _meta logLevel (none without one); Legacy, with logging
// declared, every message; logging/setLevel answers {} on Legacy.
func TestConformance_logging(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	logMessages := func(t *testing.T, rev string, r *response) int {
		t.Helper()
		events := r.events(t)
		for _, ev := range events[:len(events)-1] {
			if m := confMethod(t, ev); m != "notifications/message" {
				t.Fatalf("event %q, want notifications/message", m)
			}
			validateMessage(t, rev, "LoggingMessageNotification", ev)
			if p := confParams(t, ev); p["level"] != "info" || p["logger"] != "conformance" {
				t.Errorf("params %v, want level info, logger conformance", p)
			}
		}
		validateResult(t, rev, "CallToolResult", events[len(events)-1])
		return len(events) - 1
	}
	t.Run("modern at info", func(t *testing.T) {
		r := confCall(t, h, 1, "test_tool_with_logging", nil, metaWith(nil, map[string]any{"io.modelcontextprotocol/logLevel": "info"}), nil, nil)
		if n := logMessages(t, revModern, r); n != 3 {
			t.Errorf("%d log messages, want 3", n)
		}
	})
	for name, meta := range map[string]map[string]any{
		"modern without level": metaWith(nil, nil),
		"modern at error":      metaWith(nil, map[string]any{"io.modelcontextprotocol/logLevel": "error"}),
	} {
		t.Run(name, func(t *testing.T) {
			r := confCall(t, h, 2, "test_logging_tool", nil, meta, nil, nil)
			if ct := r.Header.Get("Content-Type"); r.Status != http.StatusOK || ct != "application/json" {
				t.Fatalf("status %d Content-Type %q, want 200 JSON without log messages: %s", r.Status, ct, r.Body)
			}
			validateResult(t, revModern, "CallToolResult", r.Body)
		})
	}
	t.Run("modern unknown level", func(t *testing.T) {
		r := confCall(t, h, 3, "test_logging_tool", nil, metaWith(nil, map[string]any{"io.modelcontextprotocol/logLevel": "loud"}), nil, nil)
		r.expectError(t, http.StatusBadRequest, -32602)
	})
	t.Run("legacy", func(t *testing.T) {
		r := confCall(t, h, 4, "test_tool_with_logging", nil, nil, nil, nil)
		if n := logMessages(t, rev20251125, r); n != 3 {
			t.Errorf("%d log messages, want 3", n)
		}
	})
	t.Run("legacy setLevel", func(t *testing.T) {
		r := h.send(t, call{User: "alice", ID: 5, Method: "logging/setLevel", Params: map[string]any{"level": "info"}})
		validateResult(t, rev20251125, "EmptyResult", r.Body)
		if got := string(members(t, r.Body)["result"]); got != "{}" {
			t.Errorf("result = %s, want {}", got)
		}
		for _, params := range []map[string]any{{"level": "loud"}, {}, {"level": 3}} {
			r := h.send(t, call{User: "alice", ID: 6, Method: "logging/setLevel", Params: params})
			r.expectError(t, rpcStatus(legacy, http.StatusBadRequest), -32602)
		}
	})
	t.Run("modern setLevel stays removed", func(t *testing.T) {
		r := h.send(t, call{Era: modern, User: "alice", ID: 7, Method: "logging/setLevel", Params: map[string]any{"level": "info"}})
		r.expectError(t, http.StatusNotFound, -32601)
	})
}

// Ensure test_trigger_tool_change reaches an open listen stream (through
// NOTIFY on PostgreSQL, the hub on the embedded store).
func TestConformance_triggerReachesListen(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	s := h.stream(t, listenCall("", "bob", 77, toolsOnly()))
	if m := confMethod(t, s.nextMessage(t)); m != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event %q, want the acknowledgement", m)
	}
	r := confCall(t, h, 1, "test_trigger_tool_change", nil, metaWith(nil, nil), nil, nil)
	validateResult(t, revModern, "CallToolResult", r.Body)
	if res := r.result(t); res["isError"] == true {
		t.Fatalf("trigger failed: %s", r.Body)
	}
	ev := s.nextMessage(t)
	if m := confMethod(t, ev); m != "notifications/tools/list_changed" {
		t.Fatalf("event %q, want notifications/tools/list_changed: %s", m, ev)
	}
	meta, _ := confParams(t, ev)["_meta"].(map[string]any)
	if id, _ := meta["io.modelcontextprotocol/subscriptionId"].(json.Number); id.String() != "77" {
		t.Errorf("subscriptionId = %v, want 77", meta)
	}
}

// Ensure test_x_mcp_header's mirrored argument is checked against
// Mcp-Param-Region: equal (plain or base64) runs, anything else is -32020.
func TestConformance_xMCPHeader(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	args := map[string]any{"region": "Hello"}
	for _, v := range []string{"Hello", "=?base64?SGVsbG8=?="} {
		r := confCall(t, h, 1, "test_x_mcp_header", args, metaWith(nil, nil), nil, map[string]string{"Mcp-Param-Region": v})
		if r.Status != http.StatusOK {
			t.Fatalf("header %q: status %d: %s", v, r.Status, r.Body)
		}
		validateResult(t, revModern, "CallToolResult", r.Body)
		if c := r.result(t)["content"].([]any)[0].(map[string]any); c["text"] != "region=Hello" {
			t.Errorf("header %q: content %v", v, c)
		}
	}
	for name, hd := range map[string]map[string]string{
		"missing":        nil,
		"bad padding":    {"Mcp-Param-Region": "=?base64?SGVsbG8?="},
		"bad characters": {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="},
		"different":      {"Mcp-Param-Region": "World"},
	} {
		t.Run(name, func(t *testing.T) {
			r := confCall(t, h, 2, "test_x_mcp_header", args, metaWith(nil, nil), nil, hd)
			r.expectError(t, http.StatusBadRequest, -32020)
		})
	}
}
