package spec

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Wire rules shared by both eras (doc/endpoint.md, "Both eras"), on both route
// groups.

// TestWire_postOnly: every method but POST is 405 with Allow: POST, before
// authentication (no credential needed, no challenge sent).
func TestWire_postOnly(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodPatch} {
			for _, withToken := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/token=%v", g.Name, method, withToken), func(t *testing.T) {
					hd := http.Header{}
					if withToken {
						hd = auth(h.Tokens["alice"])
					}
					hd.Set("Accept", "text/event-stream")
					r := h.send(t, call{Verb: method, URL: g.URL, Header: hd})
					r.expectStatus(t, http.StatusMethodNotAllowed)
					if got := r.Header.Get("Allow"); got != http.MethodPost {
						t.Errorf("Allow = %q, want POST", got)
					}
					if got := r.Header.Get("WWW-Authenticate"); got != "" {
						t.Errorf("WWW-Authenticate = %q: 405 must come before authentication", got)
					}
					if got := r.Header.Get("Mcp-Session-Id"); got != "" {
						t.Errorf("Mcp-Session-Id = %q, want none", got)
					}
					r.expectError(t, http.StatusMethodNotAllowed, -32600)
					r.expectID(t, "")
				})
			}
		}
	}
}

// TestWire_noSessions: an Mcp-Session-Id sent by a client is ignored and
// none is ever returned; Last-Event-ID is ignored too.
func TestWire_noSessions(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		t.Run(g.Name+"/legacy", func(t *testing.T) {
			hd := auth(h.Tokens["alice"])
			r := h.send(t, call{URL: g.URL, Method: "initialize", Params: map[string]any{
				"protocolVersion": rev20251125, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "spec", "version": "1"},
			}, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, rev20251125, "InitializeResult", r.Body)
			if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
				t.Fatalf("initialize returned Mcp-Session-Id %q: no session may be minted", got)
			}
			// A made-up session, and a resumption cursor: both ignored.
			hd.Set("Mcp-Session-Id", "made-up-session-0123")
			hd.Set("Last-Event-ID", "42")
			hd.Set("MCP-Protocol-Version", rev20251125)
			for i, m := range []string{"tools/list", "ping"} {
				r = h.send(t, call{URL: g.URL, ID: i + 2, Method: m, Header: hd})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, rev20251125, map[string]string{"tools/list": "ListToolsResult", "ping": "EmptyResult"}[m], r.Body)
				if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
					t.Errorf("%s returned Mcp-Session-Id %q", m, got)
				}
			}
		})
		t.Run(g.Name+"/modern", func(t *testing.T) {
			body, hd := h.parts(t, call{Era: modern, User: "alice", Method: "tools/list"})
			hd.Set("Mcp-Session-Id", "made-up-session-0123")
			hd.Set("Last-Event-ID", "7")
			r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
			r.expectStatus(t, http.StatusOK)
			validateResult(t, revModern, "ListToolsResult", r.Body)
			if got := r.Header.Values("Mcp-Session-Id"); len(got) != 0 {
				t.Errorf("returned Mcp-Session-Id %q", got)
			}
		})
	}
}

// TestWire_envelopeErrors: one JSON-RPC request object per body; anything
// else is refused with the exact code and status, in both eras. wantID is
// the raw id echoed, or "" when the error must carry no id member (the
// 2025-11-25 and 2026-07-28 schemas do not allow "id": null, so the
// server omits it where JSON-RPC 2.0 says "id null"; doc/errors.md).
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
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tt := range tests {
				t.Run(g.Name+"/"+era+"/"+tt.name, func(t *testing.T) {
					hd := auth(h.Tokens["alice"])
					if era == "modern" {
						hd.Set("MCP-Protocol-Version", revModern)
						hd.Set("Mcp-Method", "tools/list")
					}
					r := h.send(t, call{URL: g.URL, Body: body(era, tt.tmpl), Header: hd})
					r.expectError(t, tt.status, tt.code)
					r.expectID(t, tt.wantID)
					if era == "modern" {
						def := map[int]string{-32600: "InvalidRequestError", -32700: "ParseError"}[tt.code]
						validateError(t, revModern, def, r.Body)
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
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, id := range ids {
				t.Run(fmt.Sprintf("%s/%s/%s", g.Name, era, id), func(t *testing.T) {
					r := h.send(t, call{Era: era, URL: g.URL, User: "alice", RawID: id, Method: "tools/list"})
					r.expectStatus(t, http.StatusOK)
					validateResult(t, eraRev(era), "ListToolsResult", r.Body)
					r.expectID(t, id)
				})
			}
			t.Run(g.Name+"/"+era+"/error keeps id", func(t *testing.T) {
				r := h.send(t, call{Era: era, URL: g.URL, User: "alice", RawID: `12345678901234567890123456789`, Method: "no/such/method"})
				r.expectError(t, rpcStatus(era, http.StatusNotFound), -32601)
				r.expectID(t, `12345678901234567890123456789`)
			})
		}
	}
}

// TestWire_bodyTooLarge: a body over the configured limit is 413 with
// -32600; one just under it is served.
func TestWire_bodyTooLarge(t *testing.T) {
	const limit = 2048
	h := startServer(t, withEE(), withMaxBodyBytes(limit))
	for _, g := range h.groups() {
		for _, era := range eras {
			t.Run(g.Name+"/"+era, func(t *testing.T) {
				// pad builds a tools/list body of exactly n bytes (the
				// padding is an ignored params member).
				pad := func(n int) (string, http.Header) {
					body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list", Params: map[string]any{"x": ""}})
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
				r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
				r.expectStatus(t, http.StatusOK)
				validateResult(t, eraRev(era), "ListToolsResult", r.Body)

				body, hd = pad(limit + 1)
				r = h.send(t, call{URL: g.URL, Body: body, Header: hd})
				msg, _ := r.expectError(t, http.StatusRequestEntityTooLarge, -32600)
				if !strings.Contains(msg, fmt.Sprint(limit)) {
					t.Errorf("message %q does not name the limit %d", msg, limit)
				}
				r.expectID(t, "")

				body, hd = pad(8 * limit)
				r = h.send(t, call{URL: g.URL, Body: body, Header: hd})
				r.expectError(t, http.StatusRequestEntityTooLarge, -32600)
			})
		}
	}
}

// TestWire_notifications: a message without id is accepted with 202 and an
// empty body, in both eras.
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
	for _, g := range h.groups() {
		for _, tt := range tests {
			t.Run(g.Name+"/"+tt.era+"/"+tt.method, func(t *testing.T) {
				body, hd := h.parts(t, call{Era: tt.era, User: "alice", Notify: true, Method: tt.method, Params: tt.params})
				validateMessage(t, eraRev(tt.era), "JSONRPCNotification", []byte(body))
				r := h.send(t, call{URL: g.URL, Body: body, Header: hd})
				r.expectStatus(t, http.StatusAccepted)
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
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tt := range tests {
				for _, withToken := range []bool{true, false} {
					if !withToken && tt.status != 403 {
						continue
					}
					t.Run(fmt.Sprintf("%s/%s/%s/token=%v", g.Name, era, tt.name, withToken), func(t *testing.T) {
						body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
						if !withToken {
							hd.Del("Authorization")
						}
						if tt.origin != "" {
							hd.Set("Origin", tt.origin)
						}
						r := h.send(t, call{URL: g.URL, Body: body, Header: hd, Host: tt.host})
						if tt.status == 200 {
							r.expectStatus(t, http.StatusOK)
							validateResult(t, eraRev(era), "ListToolsResult", r.Body)
							return
						}
						r.expectError(t, http.StatusForbidden, -32600)
						if got := r.Header.Get("WWW-Authenticate"); got != "" {
							t.Errorf("WWW-Authenticate = %q: the origin check comes before authentication", got)
						}
					})
				}
			}
		}
	}
}

// TestWire_unknownMethod: -32601, data.method naming the method; 404 in
// the Modern era, 200 in the Legacy one.
func TestWire_unknownMethod(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, method := range []string{"no/such/method", "tools/List", "completion/completes", "resources/watch", "sampling/createMessage"} {
				t.Run(g.Name+"/"+era+"/"+method, func(t *testing.T) {
					r := h.send(t, call{Era: era, URL: g.URL, User: "alice", ID: 3, Method: method})
					_, data := r.expectError(t, rpcStatus(era, http.StatusNotFound), -32601)
					r.expectID(t, "3")
					d, _ := data.(map[string]any)
					if d["method"] != method {
						t.Errorf("data = %v, want {method: %q}", data, method)
					}
					if era == "modern" {
						validateError(t, revModern, "MethodNotFoundError", r.Body)
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
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, f := range failing {
				t.Run(g.Name+"/"+era+"/get_issue "+f.name, func(t *testing.T) {
					r := h.send(t, call{Era: era, URL: g.URL, User: "alice", Method: "tools/call", Params: map[string]any{"name": "get_issue", "arguments": f.args}})
					r.expectStatus(t, http.StatusOK)
					validateResult(t, eraRev(era), "CallToolResult", r.Body)
					res := r.result(t)
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
					r := h.send(t, call{Era: era, URL: g.URL, User: "alice", ID: 2, Method: "tools/call", Params: map[string]any{"name": name, "arguments": map[string]any{}}})
					r.expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
					r.expectID(t, "2")
					if era == "modern" {
						validateError(t, revModern, "InvalidParamsError", r.Body)
					}
				})
			}
		}
	}
	t.Run("EE tool on CE group", func(t *testing.T) {
		for _, era := range eras {
			r := h.send(t, call{Era: era, User: "alice", ID: 4, Method: "tools/call", Params: map[string]any{"name": "semantic_code_search", "arguments": map[string]any{}}})
			r.expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
		}
	})
}
