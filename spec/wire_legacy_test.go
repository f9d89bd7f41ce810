package spec

import (
	"encoding/json"
	"net/http"
	"testing"

	"gitlab.com/glmcp/glmcp/app"
)

// The Legacy wire (2025-03-26 … 2025-11-25; doc/endpoint.md, "Legacy"), on
// both route groups.

func initParams(version any) map[string]any {
	p := map[string]any{"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "spec", "version": "1.0.0"}}
	if version != nil {
		p["protocolVersion"] = version
	}
	return p
}

// TestWire_legacyInitialize: a supported handshake version is echoed; any
// other version, older (2024-11-05), newer (a future date, a Modern one) or
// not a date at all, is answered with the newest Legacy version (MCP
// lifecycle: the server MUST answer with a version it supports, the client
// decides); only a missing version is refused, with the exact answer below.
func TestWire_legacyInitialize(t *testing.T) {
	h := startServer(t, withEE())
	tests := []struct {
		ask, want string
	}{
		{rev20251125, rev20251125},
		{rev20250618, rev20250618},
		{"2025-03-26", "2025-03-26"},
		{revModern, rev20251125},
		{"2024-11-05", rev20251125},
		{"2024-10-07", rev20251125},
		{"2027-03-31", rev20251125},
		{"2099-01-01", rev20251125},
		{"v999.0.0", rev20251125},
		{"2025-11-25 ", rev20251125},
	}
	for _, g := range h.groups() {
		for _, tt := range tests {
			t.Run(g.Name+"/"+tt.ask, func(t *testing.T) {
				r := h.send(t, call{URL: g.URL, User: "alice", Method: "initialize", Params: initParams(tt.ask), Rev: legacyRev(tt.want)})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, legacyRev(tt.want), "InitializeResult", r.Body)
				res := r.result(t)
				expectLegacyResult(t, res)
				if res["protocolVersion"] != tt.want {
					t.Errorf("protocolVersion = %v, want %s", res["protocolVersion"], tt.want)
				}
				caps, _ := res["capabilities"].(map[string]any)
				tools, _ := caps["tools"].(map[string]any)
				if tools == nil || tools["listChanged"] != false {
					t.Errorf("capabilities.tools = %v, want {listChanged: false} (no listen stream on Legacy)", caps["tools"])
				}
				si, _ := res["serverInfo"].(map[string]any)
				if si["name"] != g.ServerName || si["version"] != app.Version {
					t.Errorf("serverInfo = %v, want %s %s", si, g.ServerName, app.Version)
				}
				if s, _ := res["instructions"].(string); s == "" {
					t.Errorf("instructions missing")
				}
				if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
					t.Errorf("Mcp-Session-Id %q minted", got)
				}
			})
		}
		// The client's next requests carry the negotiated version in
		// MCP-Protocol-Version, whatever it asked for.
		t.Run(g.Name+"/2024-11-05 then the negotiated header", func(t *testing.T) {
			r := h.send(t, call{URL: g.URL, User: "alice", Method: "initialize", Params: initParams("2024-11-05")})
			v, _ := r.result(t)["protocolVersion"].(string)
			r = h.send(t, call{URL: g.URL, User: "alice", ID: 2, Method: "tools/list", Header: http.Header{"MCP-Protocol-Version": {v}}})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20251125, "ListToolsResult", r.Body)
		})
		const missing = `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: missing required parameter 'protocolVersion'; ` +
			`supported versions: 2025-11-25, 2025-06-18, 2025-03-26","data":{"params":"Missing required parameter 'protocolVersion'. ` +
			`Supported: 2025-11-25, 2025-06-18, 2025-03-26","supported":["2025-11-25","2025-06-18","2025-03-26"]}}}`
		refused := []struct {
			name    string
			version any // nil: member absent
			want    string
		}{
			{"missing", nil, missing},
			{"empty", "", missing},
			{"a number", 20251125, ""},
		}
		for _, tt := range refused {
			t.Run(g.Name+"/refused "+tt.name, func(t *testing.T) {
				r := h.send(t, call{URL: g.URL, User: "alice", ID: 2, Method: "initialize", Params: initParams(tt.version)})
				r.expectError(t, rpcStatus(legacy, http.StatusBadRequest), -32602)
				validateMessage(t, rev20251125, "JSONRPCErrorResponse", r.Body)
				r.expectID(t, "2")
				if tt.want != "" && string(r.Body) != tt.want {
					t.Errorf("body =\n%s\nwant\n%s", r.Body, tt.want)
				}
			})
		}
		t.Run(g.Name+"/no params", func(t *testing.T) {
			r := h.send(t, call{URL: g.URL, User: "alice", ID: 2, Method: "initialize"})
			r.expectError(t, rpcStatus(legacy, http.StatusBadRequest), -32602)
			if string(r.Body) != missing {
				t.Errorf("body =\n%s\nwant\n%s", r.Body, missing)
			}
		})
		// An MCP-Protocol-Version header that names no Legacy version makes
		// the request Modern (era selection), initialize included: a
		// Modern request without _meta is 400 -32602, one with _meta finds
		// no initialize in 2026-07-28 (TestWire_modernRemovedMethods).
		t.Run(g.Name+"/Modern header without _meta", func(t *testing.T) {
			for _, v := range []string{revModern, "2027-03-31", "2024-11-05"} {
				r := h.send(t, call{URL: g.URL, User: "alice", ID: 7, Method: "initialize", Params: initParams(rev20251125),
					Header: http.Header{"MCP-Protocol-Version": {v}}, Rev: revModern})
				r.expectError(t, http.StatusBadRequest, -32602)
				want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: _meta must include \"io.modelcontextprotocol/protocolVersion\" (a string)"}}`
				if string(r.Body) != want {
					t.Errorf("header %s: body =\n%s\nwant\n%s", v, r.Body, want)
				}
			}
		})
		t.Run(g.Name+"/initialized notification", func(t *testing.T) {
			r := h.send(t, call{URL: g.URL, User: "alice", Notify: true, Method: "notifications/initialized"})
			r.expectStatus(t, http.StatusAccepted)
			if len(r.Body) != 0 {
				t.Errorf("body %q, want empty", r.Body)
			}
		})
	}
}

// TestWire_legacyPing: ping answers exactly {}.
func TestWire_legacyPing(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for name, params := range map[string]map[string]any{
			"no params":    nil,
			"empty params": {},
			"with _meta":   {"_meta": map[string]any{"progressToken": 1}},
		} {
			t.Run(g.Name+"/"+name, func(t *testing.T) {
				r := h.send(t, call{URL: g.URL, User: "alice", ID: "p", Method: "ping", Params: params})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, rev20251125, "EmptyResult", r.Body)
				if got := string(members(t, r.Body)["result"]); got != "{}" {
					t.Errorf("result = %s, want exactly {}", got)
				}
				r.expectID(t, `"p"`)
			})
		}
	}
}

// TestWire_legacyStateless: tools/list and tools/call need no initialize
// first, and Legacy results carry none of the Modern-only fields.
func TestWire_legacyStateless(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		t.Run(g.Name+"/tools/call first", func(t *testing.T) {
			r := h.send(t, call{URL: g.URL, User: "alice", Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20251125, "CallToolResult", r.Body)
			res := r.result(t)
			expectLegacyResult(t, res)
			if res["isError"] == true {
				t.Fatalf("isError: %s", r.Body)
			}
			sc, _ := res["structuredContent"].(map[string]any)
			if sc["version"] != app.Version {
				t.Errorf("structuredContent = %v, want version %s", sc, app.Version)
			}
		})
		t.Run(g.Name+"/tools/list first", func(t *testing.T) {
			r := h.send(t, call{URL: g.URL, User: "alice", Method: "tools/list"})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20251125, "ListToolsResult", r.Body)
			res := r.result(t)
			expectLegacyResult(t, res)
			if n := len(toolNames(t, res)); n == 0 {
				t.Errorf("no tools listed")
			}
		})
		for _, l := range []struct{ method, def string }{
			{"prompts/list", "ListPromptsResult"},
			{"resources/list", "ListResourcesResult"},
			{"resources/templates/list", "ListResourceTemplatesResult"},
		} {
			t.Run(g.Name+"/"+l.method, func(t *testing.T) {
				r := h.send(t, call{URL: g.URL, User: "alice", Method: l.method})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, rev20251125, l.def, r.Body)
				expectLegacyResult(t, r.result(t))
			})
		}
	}
}

// TestWire_legacyVersionHeader: a present MCP-Protocol-Version naming a
// version the server does not serve is 400 (the request is then held to
// the Modern rules and its _meta is missing: -32602); a served Legacy
// version passes.
func TestWire_legacyVersionHeader(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, v := range []string{"1999-01-01", "2024-11-05", "v999.0.0", "2025-11-25-draft"} {
			t.Run(g.Name+"/"+v, func(t *testing.T) {
				hd := auth(h.Tokens["alice"])
				hd.Set("MCP-Protocol-Version", v)
				for i, m := range []string{"tools/list", "ping"} {
					r := h.send(t, call{URL: g.URL, ID: i + 1, Method: m, Header: hd})
					r.expectError(t, http.StatusBadRequest, -32602)
				}
				r := h.send(t, call{URL: g.URL, ID: 9, Method: "initialize", Params: initParams(rev20251125), Header: hd})
				r.expectError(t, http.StatusBadRequest, -32602)
			})
		}
		t.Run(g.Name+"/served versions", func(t *testing.T) {
			for _, v := range []string{rev20251125, rev20250618, "2025-03-26"} {
				hd := auth(h.Tokens["alice"])
				hd.Set("MCP-Protocol-Version", v)
				r := h.send(t, call{URL: g.URL, Method: "tools/list", Header: hd})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, legacyRev(v), "ListToolsResult", r.Body)
			}
		})
	}
}

// TestWire_legacy20250618Round: a whole 2025-06-18 session validates
// against the 2025-06-18 schema.
func TestWire_legacy20250618Round(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		t.Run(g.Name, func(t *testing.T) {
			hd := auth(h.Tokens["alice"])
			r := h.send(t, call{URL: g.URL, Method: "initialize", Params: initParams(rev20250618), Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20250618, "InitializeResult", r.Body)

			hd.Set("MCP-Protocol-Version", rev20250618)
			r = h.send(t, call{URL: g.URL, Notify: true, Method: "notifications/initialized", Header: hd})
			r.expectStatus(t, http.StatusAccepted)

			r = h.send(t, call{URL: g.URL, ID: 2, Method: "tools/list", Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20250618, "ListToolsResult", r.Body)

			r = h.send(t, call{URL: g.URL, ID: 3, Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20250618, "CallToolResult", r.Body)
			var res struct {
				Result struct {
					StructuredContent map[string]any `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal(r.Body, &res); err != nil {
				t.Fatal(err)
			}
			if res.Result.StructuredContent["version"] != app.Version {
				t.Errorf("structuredContent = %v", res.Result.StructuredContent)
			}

			r = h.send(t, call{URL: g.URL, ID: 4, Method: "ping", Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20250618, "EmptyResult", r.Body)

			r = h.send(t, call{URL: g.URL, ID: 5, Method: "no/such", Header: hd})
			r.expectError(t, rpcStatus(legacy, http.StatusNotFound), -32601)
		})
	}
}
