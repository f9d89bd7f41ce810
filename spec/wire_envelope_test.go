package spec

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Wire rules shared by both wireEras (DESIGN.md §2.1), on both route groups.

// TestWire_postOnly: every method but POST is 405 with Allow: POST, before
// authentication (no credential needed, no challenge sent).
func TestWire_postOnly(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range wireGroups(h) {
		for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodPatch} {
			for _, withToken := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/token=%v", g.Name, method, withToken), func(t *testing.T) {
					hd := http.Header{}
					if withToken {
						hd = auth(h.Tokens["alice"])
					}
					hd.Set("Accept", "text/event-stream")
					r := wireSend(t, method, g.URL, "", hd, "")
					wireExpectStatus(t, r, http.StatusMethodNotAllowed)
					if got := r.Header.Get("Allow"); got != http.MethodPost {
						t.Errorf("Allow = %q, want POST", got)
					}
					if got := r.Header.Get("WWW-Authenticate"); got != "" {
						t.Errorf("WWW-Authenticate = %q: 405 must come before authentication", got)
					}
					if got := r.Header.Get("Mcp-Session-Id"); got != "" {
						t.Errorf("Mcp-Session-Id = %q, want none", got)
					}
					expectError(t, r, rev20251125, http.StatusMethodNotAllowed, -32600)
					wireExpectID(t, r.Body, "")
				})
			}
		}
	}
}

// TestWire_noSessions: an Mcp-Session-Id sent by a client is ignored and
// none is ever returned; Last-Event-ID is ignored too.
func TestWire_noSessions(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range wireGroups(h) {
		t.Run(g.Name+"/legacy", func(t *testing.T) {
			hd := auth(h.Tokens["alice"])
			r := do(t, http.MethodPost, g.URL, envelope(t, 1, "initialize", map[string]any{
				"protocolVersion": rev20251125, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "spec", "version": "1"},
			}), hd)
			wireExpectStatus(t, r, http.StatusOK)
			validateResult(t, rev20251125, "InitializeResult", r.Body)
			if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
				t.Fatalf("initialize returned Mcp-Session-Id %q: no session may be minted", got)
			}
			// A made-up session, and a resumption cursor: both ignored.
			hd.Set("Mcp-Session-Id", "made-up-session-0123")
			hd.Set("Last-Event-ID", "42")
			hd.Set("MCP-Protocol-Version", rev20251125)
			for i, m := range []string{"tools/list", "ping"} {
				r = do(t, http.MethodPost, g.URL, envelope(t, i+2, m, nil), hd)
				wireExpectStatus(t, r, http.StatusOK)
				validateResult(t, rev20251125, map[string]string{"tools/list": "ListToolsResult", "ping": "EmptyResult"}[m], r.Body)
				if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
					t.Errorf("%s returned Mcp-Session-Id %q", m, got)
				}
			}
		})
		t.Run(g.Name+"/modern", func(t *testing.T) {
			body, hd := h.wireModernRequest(t, "alice", 1, "tools/list", nil)
			hd.Set("Mcp-Session-Id", "made-up-session-0123")
			hd.Set("Last-Event-ID", "7")
			r := do(t, http.MethodPost, g.URL, body, hd)
			wireExpectStatus(t, r, http.StatusOK)
			validateResult(t, revModern, "ListToolsResult", r.Body)
			if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
				t.Errorf("returned Mcp-Session-Id %q", got)
			}
		})
	}
}

// TestWire_envelopeErrors: one JSON-RPC request object per body; anything
// else is refused with the exact code and status, in both wireEras. wantID is
// the raw id echoed, or "" when the error must carry no id member (the
// 2025-11-25 and 2026-07-28 schemas do not allow "id": null, so the
// server omits it where DESIGN.md says "id null").
func TestWire_envelopeErrors(t *testing.T) {
	h := startServer(t, withEE())
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	// body builds a request body for era from a template holding
	// PARAMS, the era's params object.
	body := func(era, tmpl string) string {
		p := `{}`
		if era == "modern" {
			p = `{"_meta":` + meta + `}`
		}
		return strings.ReplaceAll(tmpl, "PARAMS", p)
	}
	tests := []struct {
		name   string
		tmpl   string
		status int
		code   int
		wantID string
	}{
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":PARAMS}]`, 400, -32600, ""},
		{"empty batch", `[]`, 400, -32600, ""},
		{"batch of two", `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":PARAMS},{"jsonrpc":"2.0","id":2,"method":"tools/list","params":PARAMS}]`, 400, -32600, ""},
		{"result response", `{"jsonrpc":"2.0","id":1,"result":PARAMS}`, 400, -32600, "1"},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, 400, -32600, "1"},
		{"not an object", `"tools/list"`, 400, -32600, ""},
		{"unparseable", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":PARAMS`, 400, -32700, ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":PARAMS} x`, 400, -32700, ""},
		{"empty body", ``, 400, -32700, ""},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"id float", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"id float integral", `{"jsonrpc":"2.0","id":1.0,"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"id exponent", `{"jsonrpc":"2.0","id":1e3,"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"id boolean", `{"jsonrpc":"2.0","id":true,"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"Method capitalised", `{"jsonrpc":"2.0","id":1,"Method":"tools/list","params":PARAMS}`, 400, -32600, "1"},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/list","params":PARAMS}`, 400, -32600, "1"},
		{"duplicate params", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":PARAMS,"params":PARAMS}`, 400, -32600, "1"},
		{"duplicate jsonrpc", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/list","params":PARAMS}`, 400, -32600, "1"},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":PARAMS}`, 400, -32600, ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"tools/list","params":PARAMS}`, 400, -32600, "1"},
		{"no jsonrpc", `{"id":1,"method":"tools/list","params":PARAMS}`, 400, -32600, "1"},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7,"params":PARAMS}`, 400, -32600, "1"},
		{"params null", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}`, 400, -32600, "1"},
		{"params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}`, 400, -32600, "1"},
		{"string id kept on error", `{"jsonrpc":"2.0","id":"7","Method":"tools/list","params":PARAMS}`, 400, -32600, `"7"`},
	}
	for _, g := range wireGroups(h) {
		for _, era := range wireEras {
			for _, tt := range tests {
				t.Run(g.Name+"/"+era+"/"+tt.name, func(t *testing.T) {
					hd := auth(h.Tokens["alice"])
					if era == "modern" {
						hd.Set("MCP-Protocol-Version", revModern)
						hd.Set("Mcp-Method", "tools/list")
					}
					r := do(t, http.MethodPost, g.URL, body(era, tt.tmpl), hd)
					expectError(t, r, wireRev(era), tt.status, tt.code)
					wireExpectID(t, r.Body, tt.wantID)
					if era == "modern" {
						def := map[int]string{-32600: "InvalidRequestError", -32700: "ParseError"}[tt.code]
						wireValidateError(t, revModern, def, r.Body)
					}
				})
			}
		}
	}
}

// TestWire_idEcho: a string or integer id is echoed with its original type
// and spelling, integers beyond 64 bits included.
func TestWire_idEcho(t *testing.T) {
	h := startServer(t, withEE())
	ids := []string{`1`, `"1"`, `0`, `-7`, `9007199254740993`, `12345678901234567890123456789`, `"abc-123"`, `""`, `"ü\u00e9"`}
	for _, g := range wireGroups(h) {
		for _, era := range wireEras {
			for _, id := range ids {
				t.Run(fmt.Sprintf("%s/%s/%s", g.Name, era, id), func(t *testing.T) {
					body, hd := h.wireRequest(t, era, "alice", 1, "tools/list", nil)
					body = strings.Replace(body, `"id":1`, `"id":`+id, 1)
					r := do(t, http.MethodPost, g.URL, body, hd)
					wireExpectStatus(t, r, http.StatusOK)
					validateResult(t, wireRev(era), "ListToolsResult", r.Body)
					wireExpectID(t, r.Body, id)
				})
			}
			t.Run(g.Name+"/"+era+"/error keeps id", func(t *testing.T) {
				body, hd := h.wireRequest(t, era, "alice", 1, "no/such/method", nil)
				body = strings.Replace(body, `"id":1`, `"id":12345678901234567890123456789`, 1)
				r := do(t, http.MethodPost, g.URL, body, hd)
				expectError(t, r, wireRev(era), http.StatusNotFound, -32601)
				wireExpectID(t, r.Body, `12345678901234567890123456789`)
			})
		}
	}
}

// TestWire_bodyTooLarge: a body over the configured limit is 413 with
// -32600; one just under it is served.
func TestWire_bodyTooLarge(t *testing.T) {
	const limit = 2048
	h := startServer(t, withEE(), withMaxBodyBytes(limit))
	for _, g := range wireGroups(h) {
		for _, era := range wireEras {
			t.Run(g.Name+"/"+era, func(t *testing.T) {
				// pad builds a tools/list body of exactly n bytes (the
				// padding is an ignored params member).
				pad := func(n int) (string, http.Header) {
					body, hd := h.wireRequest(t, era, "alice", 1, "tools/list", map[string]any{"x": ""})
					fill := n - len(body)
					if fill < 0 {
						t.Fatalf("base body is %d bytes, over %d", len(body), n)
					}
					return strings.Replace(body, `"x":""`, `"x":"`+strings.Repeat("a", fill)+`"`, 1), hd
				}
				body, hd := pad(limit)
				if len(body) != limit {
					t.Fatalf("body is %d bytes, want %d", len(body), limit)
				}
				r := do(t, http.MethodPost, g.URL, body, hd)
				wireExpectStatus(t, r, http.StatusOK)
				validateResult(t, wireRev(era), "ListToolsResult", r.Body)

				body, hd = pad(limit + 1)
				r = do(t, http.MethodPost, g.URL, body, hd)
				msg, _ := expectError(t, r, wireRev(era), http.StatusRequestEntityTooLarge, -32600)
				if !strings.Contains(msg, fmt.Sprint(limit)) {
					t.Errorf("message %q does not name the limit %d", msg, limit)
				}
				wireExpectID(t, r.Body, "")

				body, hd = pad(8 * limit)
				r = do(t, http.MethodPost, g.URL, body, hd)
				expectError(t, r, wireRev(era), http.StatusRequestEntityTooLarge, -32600)
			})
		}
	}
}

// TestWire_notifications: a message without id is accepted with 202 and an
// empty body, in both wireEras.
func TestWire_notifications(t *testing.T) {
	h := startServer(t, withEE())
	tests := []struct {
		era, method string
		params      map[string]any
	}{
		{"legacy", "notifications/initialized", nil},
		{"legacy", "notifications/initialized", map[string]any{}},
		{"legacy", "notifications/cancelled", map[string]any{"requestId": 1, "reason": "user"}},
		{"legacy", "notifications/roots/list_changed", nil},
		{"modern", "notifications/initialized", nil},
		{"modern", "notifications/cancelled", map[string]any{"requestId": 1}},
	}
	for _, g := range wireGroups(h) {
		for _, tt := range tests {
			t.Run(g.Name+"/"+tt.era+"/"+tt.method, func(t *testing.T) {
				body, hd := h.wireRequest(t, tt.era, "alice", nil, tt.method, tt.params)
				validateMessage(t, wireRev(tt.era), "JSONRPCNotification", []byte(body))
				r := do(t, http.MethodPost, g.URL, body, hd)
				wireExpectStatus(t, r, http.StatusAccepted)
				if len(r.Body) != 0 {
					t.Errorf("body = %q, want empty", r.Body)
				}
			})
		}
	}
}

// TestWire_origin: DNS-rebinding protection. A present, foreign Origin is
// 403 before authentication; loopback origins and the public URL's origin
// pass; the server listens on loopback, so a foreign Host is 403 too.
func TestWire_origin(t *testing.T) {
	h := startServer(t, withEE())
	_, port, err := net.SplitHostPort(h.HTTP.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, origin, host string
		status             int
	}{
		{"no origin", "", "", 200},
		{"public URL origin", h.URL, "", 200},
		{"localhost origin", "http://localhost:3000", "", 200},
		{"127.0.0.1 origin", "http://127.0.0.1:1", "", 200},
		{"::1 origin", "http://[::1]:8080", "", 200},
		{"https localhost origin", "https://localhost", "", 200},
		{"foreign origin", "http://evil.example.com", "", 403},
		{"foreign origin on the server's port", "http://evil.example.com:" + port, "", 403},
		{"null origin", "null", "", 403},
		{"lookalike origin", "http://localhost.evil.example.com", "", 403},
		{"foreign host", "", "evil.example.com", 403},
		{"foreign host and origin", "http://evil.example.com", "evil.example.com", 403},
		{"localhost host", "", "localhost", 200},
	}
	for _, g := range wireGroups(h) {
		for _, era := range wireEras {
			for _, tt := range tests {
				for _, withToken := range []bool{true, false} {
					if !withToken && tt.status != 403 {
						continue
					}
					t.Run(fmt.Sprintf("%s/%s/%s/token=%v", g.Name, era, tt.name, withToken), func(t *testing.T) {
						body, hd := h.wireRequest(t, era, "alice", 1, "tools/list", nil)
						if !withToken {
							hd.Del("Authorization")
						}
						if tt.origin != "" {
							hd.Set("Origin", tt.origin)
						}
						r := wireSend(t, http.MethodPost, g.URL, body, hd, tt.host)
						if tt.status == 200 {
							wireExpectStatus(t, r, http.StatusOK)
							validateResult(t, wireRev(era), "ListToolsResult", r.Body)
							return
						}
						expectError(t, r, wireRev(era), http.StatusForbidden, -32600)
						if got := r.Header.Get("WWW-Authenticate"); got != "" {
							t.Errorf("WWW-Authenticate = %q: the origin check comes before authentication", got)
						}
					})
				}
			}
		}
	}
}

// TestWire_unknownMethod: 404, -32601, data.method naming the method.
func TestWire_unknownMethod(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range wireGroups(h) {
		for _, era := range wireEras {
			for _, method := range []string{"no/such/method", "tools/List", "completion/complete", "resources/subscribe", "sampling/createMessage"} {
				t.Run(g.Name+"/"+era+"/"+method, func(t *testing.T) {
					r := h.wireCall(t, era, g.URL, "alice", 3, method, nil)
					_, data := expectError(t, r, wireRev(era), http.StatusNotFound, -32601)
					wireExpectID(t, r.Body, "3")
					d, _ := data.(map[string]any)
					if d["method"] != method {
						t.Errorf("data = %v, want {method: %q}", data, method)
					}
					if era == "modern" {
						wireValidateError(t, revModern, "MethodNotFoundError", r.Body)
					}
				})
			}
		}
	}
}

// TestWire_toolErrors: a tool that fails answers a 200 result with
// isError; an unknown tool is 400 -32602.
func TestWire_toolErrors(t *testing.T) {
	h := startServer(t, withEE())
	failing := []struct {
		name string
		args map[string]any
	}{
		{"not found", map[string]any{"id": "no-such-group/no-such-project", "issue_iid": 1}},
		{"missing required argument", map[string]any{"id": "gitlab-org/gitlab-mcp"}},
		{"wrong argument type", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": "one"}},
	}
	for _, g := range wireGroups(h) {
		for _, era := range wireEras {
			for _, f := range failing {
				t.Run(g.Name+"/"+era+"/get_issue "+f.name, func(t *testing.T) {
					r := h.wireCall(t, era, g.URL, "alice", 1, "tools/call", map[string]any{"name": "get_issue", "arguments": f.args})
					wireExpectStatus(t, r, http.StatusOK)
					validateResult(t, wireRev(era), "CallToolResult", r.Body)
					res := result(t, r)
					if res["isError"] != true {
						t.Fatalf("isError = %v, want true: %s", res["isError"], r.Body)
					}
					c, _ := res["content"].([]any)
					if len(c) == 0 {
						t.Errorf("an error result must explain itself in content: %s", r.Body)
					}
				})
			}
			for _, name := range []string{"no_such_tool", "GET_ISSUE", "get_issue_"} {
				t.Run(g.Name+"/"+era+"/unknown "+name, func(t *testing.T) {
					r := h.wireCall(t, era, g.URL, "alice", 2, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
					expectError(t, r, wireRev(era), http.StatusBadRequest, -32602)
					wireExpectID(t, r.Body, "2")
					if era == "modern" {
						wireValidateError(t, revModern, "InvalidParamsError", r.Body)
					}
				})
			}
		}
	}
	t.Run("EE tool on CE group", func(t *testing.T) {
		for _, era := range wireEras {
			r := h.wireCall(t, era, h.CE, "alice", 4, "tools/call", map[string]any{"name": "semantic_code_search", "arguments": map[string]any{}})
			expectError(t, r, wireRev(era), http.StatusBadRequest, -32602)
		}
	})
}
