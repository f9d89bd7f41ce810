package spec

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// The Modern (2026-07-28) wire (doc/endpoint.md, "Era selection" and "Modern
// (2026-07-28)"), on both route groups.

// TestWire_eraSelection: the era is a property of each request. A request
// whose _meta holds the protocol version is Modern; anything else is
// Legacy, on the same connection, in any order.
func TestWire_eraSelection(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		t.Run(g.Name, func(t *testing.T) {
			for i, era := range []string{"legacy", "modern", "legacy", "modern", "modern", "legacy"} {
				r := h.send(t, call{Era: era, URL: g.URL, User: "alice", ID: i + 1, Method: "tools/list"})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "ListToolsResult", r.Body)
				if era == "modern" {
					expectModernResult(t, r.result(t), g.ServerName)
				} else {
					expectLegacyResult(t, r.result(t))
				}
			}
		})
		t.Run(g.Name+"/_meta without protocolVersion is Legacy", func(t *testing.T) {
			r := h.send(t, call{URL: g.URL, Method: "tools/list", Params: map[string]any{
				"_meta": map[string]any{"progressToken": "p1", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
			}, User: "alice"})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20251125, "ListToolsResult", r.Body)
			expectLegacyResult(t, r.result(t))
		})
		t.Run(g.Name+"/legacy version header is Legacy", func(t *testing.T) {
			for _, v := range []string{rev20251125, rev20250618, "2025-03-26"} {
				hd := auth(h.Tokens["alice"])
				hd.Set("MCP-Protocol-Version", v)
				r := h.send(t, call{URL: g.URL, Method: "ping", Header: hd})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, legacyRev(v), "EmptyResult", r.Body)
				if got := string(members(t, r.Body)["result"]); got != "{}" {
					t.Errorf("ping with header %s: result %s, want {}", v, got)
				}
			}
		})
		t.Run(g.Name+"/modern version header without _meta", func(t *testing.T) {
			// The header names the Modern revision, so the request is held to
			// the Modern rules: its _meta is missing.
			hd := auth(h.Tokens["alice"])
			hd.Set("MCP-Protocol-Version", revModern)
			hd.Set("Mcp-Method", "tools/list")
			r := h.send(t, call{URL: g.URL, Method: "tools/list", Header: hd})
			r.expectError(t, http.StatusBadRequest, -32602)
			validateError(t, revModern, "InvalidParamsError", r.Body)
		})
	}
}

// TestWire_modernMeta: _meta must hold the protocol version (a string) and
// the client capabilities (an object); clientInfo is optional.
func TestWire_modernMeta(t *testing.T) {
	h := startServer(t, withEE())
	const (
		pv   = "io.modelcontextprotocol/protocolVersion"
		caps = "io.modelcontextprotocol/clientCapabilities"
		info = "io.modelcontextprotocol/clientInfo"
	)
	without := func(k string) map[string]any { m := modernMeta(); delete(m, k); return m }
	with := func(k string, v any) map[string]any { m := modernMeta(); m[k] = v; return m }
	tests := []struct {
		name   string
		params map[string]any // nil: no params at all
		status int
	}{
		{"no params", nil, 400},
		{"no _meta", map[string]any{}, 400},
		{"_meta empty", map[string]any{"_meta": map[string]any{}}, 400},
		{"_meta not an object", map[string]any{"_meta": "2026-07-28"}, 400},
		{"missing protocolVersion", map[string]any{"_meta": without(pv)}, 400},
		{"protocolVersion a number", map[string]any{"_meta": with(pv, 20260728)}, 400},
		{"protocolVersion null", map[string]any{"_meta": with(pv, nil)}, 400},
		{"protocolVersion empty", map[string]any{"_meta": with(pv, "")}, 400},
		{"missing clientCapabilities", map[string]any{"_meta": without(caps)}, 400},
		{"clientCapabilities null", map[string]any{"_meta": with(caps, nil)}, 400},
		{"clientCapabilities an array", map[string]any{"_meta": with(caps, []any{})}, 400},
		{"clientCapabilities a string", map[string]any{"_meta": with(caps, "all")}, 400},
		{"missing clientInfo", map[string]any{"_meta": without(info)}, 200},
		{"rich clientCapabilities", map[string]any{"_meta": with(caps, map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}})}, 200},
	}
	for _, g := range h.groups() {
		for _, tt := range tests {
			t.Run(g.Name+"/"+tt.name, func(t *testing.T) {
				hd := auth(h.Tokens["alice"])
				hd.Set("MCP-Protocol-Version", revModern)
				hd.Set("Mcp-Method", "server/discover")
				r := h.send(t, call{URL: g.URL, ID: 9, Method: "server/discover", Params: tt.params, Header: hd})
				if tt.status == 200 {
					r.expectStatus(t, http.StatusOK)
					validateResult(t, revModern, "DiscoverResult", r.Body)
					expectModernResult(t, r.result(t), g.ServerName)
					return
				}
				r.expectError(t, http.StatusBadRequest, -32602)
				validateError(t, revModern, "InvalidParamsError", r.Body)
				r.expectID(t, "9")
			})
		}
	}
}

// TestWire_modernUnsupportedVersion: an unsupported _meta version is 400
// -32022 with data {supported, requested}; supported is exactly discover's
// supportedVersions. A header naming a served version over a _meta naming
// another is a mismatch (-32020), checked first.
func TestWire_modernUnsupportedVersion(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		t.Run(g.Name, func(t *testing.T) {
			r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", Method: "server/discover"})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, revModern, "DiscoverResult", r.Body)
			var disc struct {
				Result struct {
					SupportedVersions []string `json:"supportedVersions"`
				} `json:"result"`
			}
			if err := json.Unmarshal(r.Body, &disc); err != nil {
				t.Fatal(err)
			}
			for _, v := range []string{"v999.0.0", "2099-01-01", rev20251125, "2026-07-28 "} {
				meta := modernMeta()
				meta["io.modelcontextprotocol/protocolVersion"] = v
				body, hd := h.parts(t, call{Era: modern, User: "alice", ID: 2, Method: "tools/list", Params: map[string]any{"_meta": meta}})
				hd.Set("MCP-Protocol-Version", v)
				if v == "2026-07-28 " {
					// A header value cannot carry the trailing space (HTTP
					// trims it); the header then names the served version
					// and the _meta differs: a mismatch, not an unknown version.
					r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
					r.expectError(t, http.StatusBadRequest, -32020)
					continue
				}
				r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
				_, data := r.expectError(t, http.StatusBadRequest, -32022)
				validateMessage(t, revModern, "UnsupportedProtocolVersionError", r.Body)
				r.expectID(t, "2")
				d, _ := data.(map[string]any)
				if d["requested"] != v {
					t.Errorf("data.requested = %v, want %q", d["requested"], v)
				}
				var sup []string
				for _, s := range d["supported"].([]any) {
					sup = append(sup, s.(string))
				}
				if !slices.Equal(sup, disc.Result.SupportedVersions) {
					t.Errorf("data.supported = %v, want discover's supportedVersions %v", sup, disc.Result.SupportedVersions)
				}
			}

			// Header 2026-07-28, _meta v999: the header check wins.
			meta := modernMeta()
			meta["io.modelcontextprotocol/protocolVersion"] = "v999.0.0"
			body, hd := h.parts(t, call{Era: modern, User: "alice", ID: 3, Method: "tools/list", Params: map[string]any{"_meta": meta}})
			hd.Set("MCP-Protocol-Version", revModern)
			r = h.send(t, call{URL: g.URL, Body: body, Header: hd})
			r.expectError(t, http.StatusBadRequest, -32020)
			validateMessage(t, revModern, "HeaderMismatchError", r.Body)
		})
	}
}

// TestWire_modernHeaders: the mirrored headers must be present and equal
// the body (names case-insensitive, values case-sensitive); each failure is
// 400 -32020.
func TestWire_modernHeaders(t *testing.T) {
	h := startServer(t, withEE())
	const tool = "get_mcp_server_version"
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	type edit func(hd http.Header)
	set := func(name string, vals ...string) edit {
		return func(hd http.Header) {
			hd.Del(name)
			for k := range hd {
				if http.CanonicalHeaderKey(k) == http.CanonicalHeaderKey(name) {
					delete(hd, k)
				}
			}
			if len(vals) > 0 {
				hd[name] = vals // name exactly as written
			}
		}
	}
	tests := []struct {
		name   string
		method string // tools/list or tools/call
		edit   edit
		ok     bool
	}{
		{"protocol version header missing", "tools/list", set("MCP-Protocol-Version"), false},
		{"protocol version header differs", "tools/list", set("MCP-Protocol-Version", rev20251125), false},
		{"protocol version header twice", "tools/list", set("MCP-Protocol-Version", revModern, revModern), false},
		{"method header missing", "tools/list", set("Mcp-Method"), false},
		{"method header differs", "tools/list", set("Mcp-Method", "prompts/list"), false},
		{"method header value case", "tools/list", set("Mcp-Method", "TOOLS/LIST"), false},
		{"method header empty", "tools/list", set("Mcp-Method", ""), false},
		{"method header twice", "tools/list", set("Mcp-Method", "tools/list", "tools/list"), false},
		{"method header lower-case name", "tools/list", set("mcp-method", "tools/list"), true},
		{"method header upper-case name", "tools/list", set("MCP-METHOD", "tools/list"), true},
		{"version header lower-case name", "tools/list", set("mcp-protocol-version", revModern), true},
		{"method header padded", "tools/list", set("Mcp-Method", "  tools/list  "), true},
		{"name header missing", "tools/call", set("Mcp-Name"), false},
		{"name header differs", "tools/call", set("Mcp-Name", "get_issue"), false},
		{"name header value case", "tools/call", set("Mcp-Name", "GET_MCP_SERVER_VERSION"), false},
		{"name header lower-case name", "tools/call", set("mcp-name", tool), true},
		{"name header padded", "tools/call", set("Mcp-Name", "  "+tool+"  "), true},
		{"name header base64 sentinel", "tools/call", set("Mcp-Name", b64(tool)), true},
		{"name header base64 of another name", "tools/call", set("Mcp-Name", b64("get_issue")), false},
		{"name header invalid base64", "tools/call", set("Mcp-Name", "=?base64?!!not-base64!!?="), false},
		{"name header base64 not UTF-8", "tools/call", set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte{0xff, 0xfe})+"?="), false},
		{"name header on tools/list is ignored", "tools/list", set("Mcp-Name", "anything"), true},
	}
	for _, g := range h.groups() {
		for _, tt := range tests {
			t.Run(g.Name+"/"+tt.name, func(t *testing.T) {
				var params map[string]any
				if tt.method == "tools/call" {
					params = map[string]any{"name": tool, "arguments": map[string]any{}}
				}
				body, hd := h.parts(t, call{Era: modern, User: "alice", ID: 5, Method: tt.method, Params: params})
				tt.edit(hd)
				r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
				if tt.ok {
					r.expectStatus(t, http.StatusOK)
					def := map[string]string{"tools/list": "ListToolsResult", "tools/call": "CallToolResult"}[tt.method]
					validateResult(t, revModern, def, r.Body)
					expectModernResult(t, r.result(t), g.ServerName)
					return
				}
				r.expectError(t, http.StatusBadRequest, -32020)
				validateMessage(t, revModern, "HeaderMismatchError", r.Body)
				r.expectID(t, "5")
			})
		}
	}
	t.Run("Mcp-Name on prompts/get and resources/read", func(t *testing.T) {
		for _, tt := range []struct{ method, key string }{{"prompts/get", "name"}, {"resources/read", "uri"}} {
			body, hd := h.parts(t, call{Era: modern, User: "alice", ID: 6, Method: tt.method, Params: map[string]any{tt.key: "gitlab://x"}})
			hd.Set("Mcp-Name", "gitlab://y")
			r := h.send(t, call{Body: body, Header: hd})
			r.expectError(t, http.StatusBadRequest, -32020)
			hd.Del("Mcp-Name")
			r = h.send(t, call{Body: body, Header: hd})
			r.expectError(t, http.StatusBadRequest, -32020)
		}
	})
}

// TestWire_modernRemovedMethods: ping, initialize and logging/setLevel do
// not exist in 2026-07-28.
func TestWire_modernRemovedMethods(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, m := range []string{"ping", "initialize", "logging/setLevel"} {
			t.Run(g.Name+"/"+m, func(t *testing.T) {
				params := map[string]any{}
				if m == "initialize" {
					params = map[string]any{"protocolVersion": revModern, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}
				}
				if m == "logging/setLevel" {
					params = map[string]any{"level": "debug"}
				}
				r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", ID: 500, Method: m, Params: params})
				_, data := r.expectError(t, http.StatusNotFound, -32601)
				validateError(t, revModern, "MethodNotFoundError", r.Body)
				r.expectID(t, "500")
				if d, _ := data.(map[string]any); d["method"] != m {
					t.Errorf("data = %v, want {method: %q}", data, m)
				}
			})
		}
	}
}

// TestWire_modernResults: every Modern result carries resultType and the
// group's serverInfo; discover, lists and their caching hints.
func TestWire_modernResults(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		t.Run(g.Name+"/server/discover", func(t *testing.T) {
			r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", Method: "server/discover"})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, revModern, "DiscoverResult", r.Body)
			res := r.result(t)
			expectModernResult(t, res, g.ServerName)
			expectCache(t, res, "public")
			var got []string
			for _, v := range res["supportedVersions"].([]any) {
				got = append(got, v.(string))
			}
			if want := []string{revModern, rev20251125, rev20250618, "2025-03-26"}; !slices.Equal(got, want) {
				t.Errorf("supportedVersions = %v, want %v", got, want)
			}
			caps, _ := res["capabilities"].(map[string]any)
			tools, _ := caps["tools"].(map[string]any)
			if tools["listChanged"] != true {
				t.Errorf("capabilities.tools = %v, want listChanged true", caps["tools"])
			}
			for _, k := range []string{"prompts", "resources"} {
				if _, ok := caps[k].(map[string]any); !ok {
					t.Errorf("capabilities.%s not declared (the list methods answer): %v", k, caps)
				}
			}
			if s, _ := res["instructions"].(string); s == "" {
				t.Errorf("instructions missing")
			}
		})
		t.Run(g.Name+"/tools/list", func(t *testing.T) {
			r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", ID: 2, Method: "tools/list"})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, revModern, "ListToolsResult", r.Body)
			res := r.result(t)
			expectModernResult(t, res, g.ServerName)
			expectCache(t, res, "private")
			names := toolNames(t, res)
			if !slices.Contains(names, "get_mcp_server_version") {
				t.Errorf("tools = %v, want get_mcp_server_version among them", names)
			}
			if g.Name == "CE" && slices.Contains(names, "semantic_search") {
				t.Errorf("CE group lists the EE tool semantic_search")
			}
		})
		t.Run(g.Name+"/tools/call", func(t *testing.T) {
			r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", ID: 3, Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, revModern, "CallToolResult", r.Body)
			res := r.result(t)
			expectModernResult(t, res, g.ServerName)
			if res["isError"] == true {
				t.Fatalf("isError: %s", r.Body)
			}
		})
		lists := []struct{ method, def, field string }{
			{"prompts/list", "ListPromptsResult", "prompts"},
			{"resources/list", "ListResourcesResult", "resources"},
			{"resources/templates/list", "ListResourceTemplatesResult", "resourceTemplates"},
		}
		for _, l := range lists {
			t.Run(g.Name+"/"+l.method, func(t *testing.T) {
				r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", ID: 4, Method: l.method})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, revModern, l.def, r.Body)
				res := r.result(t)
				expectModernResult(t, res, g.ServerName)
				if _, ok := res[l.field].([]any); !ok {
					t.Errorf("%s = %v, want an array", l.field, res[l.field])
				}
				if _, ok := res["ttlMs"]; !ok {
					t.Errorf("no ttlMs")
				}
				if s := res["cacheScope"]; s != "public" && s != "private" {
					t.Errorf("cacheScope = %v", s)
				}
				expectCache(t, res, res["cacheScope"].(string))
			})
		}
		t.Run(g.Name+"/unknown prompt and resource", func(t *testing.T) {
			r := h.send(t, call{Era: modern, URL: g.URL, User: "alice", ID: 5, Method: "prompts/get", Params: map[string]any{"name": "no-such-prompt"}})
			r.expectError(t, http.StatusBadRequest, -32602)
			validateError(t, revModern, "InvalidParamsError", r.Body)
			r = h.send(t, call{Era: modern, URL: g.URL, User: "alice", ID: 6, Method: "resources/read", Params: map[string]any{"uri": "gitlab://no/such/resource"}})
			r.expectError(t, http.StatusBadRequest, -32602)
			validateError(t, revModern, "InvalidParamsError", r.Body)
		})
	}
}
