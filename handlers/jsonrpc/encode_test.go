package jsonrpc

import (
	"encoding/json"
	"testing"
)

func TestEncodeResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		id     ID
		result any
		want   string
	}{
		{"object with int id", intID(1), map[string]any{"tools": []string{}}, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		{"string id keeps quotes", stringID("1"), map[string]int{"n": 1}, `{"jsonrpc":"2.0","id":"1","result":{"n":1}}`},
		{"HTML not escaped", intID(2), map[string]string{"text": "<a href=\"x\">&</a>"}, `{"jsonrpc":"2.0","id":2,"result":{"text":"<a href=\"x\">&</a>"}}`},
		{"decoded id echoed verbatim", mustDecodeID(t, `"a\u0062"`), struct{}{}, `{"jsonrpc":"2.0","id":"a\u0062","result":{}}`},
		{"nil result is an empty object", intID(3), nil, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"nil map result is an empty object", intID(3), map[string]any(nil), `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"raw message compacted", intID(4), json.RawMessage(`{ "a" : 1 }`), `{"jsonrpc":"2.0","id":4,"result":{"a":1}}`},
		{"zero id", ID{}, struct{}{}, `{"jsonrpc":"2.0","id":null,"result":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := EncodeResult(tc.id, tc.result)
			if err != nil {
				t.Fatalf("EncodeResult() error = %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("EncodeResult() =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

func TestEncodeResult_unencodable(t *testing.T) {
	t.Parallel()
	got, err := EncodeResult(intID(1), map[string]any{"c": make(chan int)})
	if err == nil {
		t.Fatalf("EncodeResult() = %s, want an error", got)
	}
	if got != nil {
		t.Errorf("EncodeResult() bytes = %s, want nil on error", got)
	}
}

func TestEncodeError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		id   ID
		err  *Error
		want string
	}{
		{"zero id is omitted", ID{}, parseError(), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`},
		{"int id", intID(9), InvalidParams("unknown tool %q", "nope"), `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: unknown tool \"nope\""}}`},
		{"string id", stringID("9"), InvalidRequest("bad %d", 1), `{"jsonrpc":"2.0","id":"9","error":{"code":-32600,"message":"bad 1"}}`},
		{"method not found data", intID(1), MethodNotFound("x/<y>&"), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: x/<y>&","data":{"method":"x/<y>&"}}}`},
		{"internal", intID(1), Internal(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"nil error is internal", intID(1), nil, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"custom data", intID(1), NewError(CodeUnsupportedProtocolVersion, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "1999-01-01"}),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"1999-01-01","supported":["2026-07-28"]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := EncodeError(tc.id, tc.err)
			if err != nil {
				t.Fatalf("EncodeError() error = %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("EncodeError() =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

func TestEncodeError_unencodableData(t *testing.T) {
	t.Parallel()
	if got, err := EncodeError(intID(1), NewError(CodeInvalidParams, "x", func() {})); err == nil {
		t.Errorf("EncodeError() = %s, want an error", got)
	}
}

func TestEncodeNotification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		method string
		params any
		want   string
	}{
		{"with params", "notifications/tools/list_changed", map[string]string{"a": "<&>"}, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"a":"<&>"}}`},
		{"nil params omitted", "notifications/initialized", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"null params omitted", "n", map[string]any(nil), `{"jsonrpc":"2.0","method":"n"}`},
		{"method escaped as JSON", `a"b<`, struct{}{}, `{"jsonrpc":"2.0","method":"a\"b<","params":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := EncodeNotification(tc.method, tc.params)
			if err != nil {
				t.Fatalf("EncodeNotification() error = %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("EncodeNotification() =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
	if got, err := EncodeNotification("n", []any{make(chan int)}); err == nil {
		t.Errorf("EncodeNotification(unencodable) = %s, want an error", got)
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	var err error = InvalidParams("missing %s", "name")
	if got, want := err.Error(), "jsonrpc error -32602: Invalid params: missing name"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e := NewError(CodeHeaderMismatch, "Header mismatch", map[string]string{"header": "Mcp-Method"})
	if e.Code != -32020 || e.Message != "Header mismatch" || e.Data == nil {
		t.Errorf("NewError() = %+v", e)
	}
}

// Ensure the status table: refusals of what is not a valid request and
// the limits have one status in both eras; errors about a request the
// server read are 200 in the Legacy era and keep their 4xx in the Modern
// one; server faults are 5xx; an unknown code is 500.
func TestStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		err            *Error
		legacy, modern int
	}{
		{"parse", parseError(), 400, 400},
		{"invalid request", InvalidRequest("x"), 400, 400},
		{"body too large", BodyTooLarge(1), 413, 413},
		{"body timeout", BodyTimeout(), 408, 408},
		{"not POST", MethodNotAllowed(), 405, 405},
		{"origin", Forbidden("x"), 403, 403},
		{"method not found", MethodNotFound("x"), 200, 404},
		{"invalid params", InvalidParams("x"), 200, 400},
		{"header mismatch", NewError(CodeHeaderMismatch, "x", nil), 200, 400},
		{"missing capability", NewError(CodeMissingRequiredClientCapability, "x", nil), 200, 400},
		{"unsupported version", NewError(CodeUnsupportedProtocolVersion, "x", nil), 200, 400},
		{"internal", Internal(), 500, 500},
		{"store unavailable", StoreUnavailable(), 503, 503},
		{"too many subscriptions", NewError(CodeTooManySubscriptions, "x", nil), 429, 429},
		{"subscriptions unavailable", Unavailable(CodeTooManySubscriptions, "x"), 503, 503},
		{"rate limited", RateLimited("x", 3, nil), 429, 429},
		{"literal", &Error{Code: CodeInvalidParams}, 200, 400},
		{"unknown code", NewError(-32000, "x", nil), 500, 500},
		{"zero code", &Error{}, 500, 500},
	} {
		if got := tc.err.Status(EraLegacy); got != tc.legacy {
			t.Errorf("%s: Legacy status = %d, want %d", tc.name, got, tc.legacy)
		}
		if got := tc.err.Status(EraModern); got != tc.modern {
			t.Errorf("%s: Modern status = %d, want %d", tc.name, got, tc.modern)
		}
		if got := tc.err.Status(EraUnknown); got != tc.modern {
			t.Errorf("%s: status before the era is known = %d, want %d", tc.name, got, tc.modern)
		}
	}
}

// Ensure that every code the package names has a row, and that a code
// whose row differs by era is one only a read request can get.
func TestStatusTable(t *testing.T) {
	t.Parallel()
	for _, code := range []int{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams,
		CodeInternalError, CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion,
		CodeTooManySubscriptions, CodeRateLimited} {
		found := false
		for _, r := range statusTable {
			found = found || (r.code == code && r.variant == plain)
			if r.legacy != r.modern && (r.code == CodeParseError || r.code == CodeInvalidRequest || r.code == CodeRateLimited) {
				t.Errorf("code %d: a refusal of an unread request differs by era (%d, %d)", r.code, r.legacy, r.modern)
			}
		}
		if !found {
			t.Errorf("code %d has no plain row in the status table", code)
		}
	}
}

func TestCodes(t *testing.T) {
	t.Parallel()
	// The numbers are wire contract; a typo here would be silent elsewhere.
	for _, tc := range []struct{ got, want int }{
		{CodeParseError, -32700}, {CodeInvalidRequest, -32600}, {CodeMethodNotFound, -32601},
		{CodeInvalidParams, -32602}, {CodeInternalError, -32603}, {CodeHeaderMismatch, -32020},
		{CodeMissingRequiredClientCapability, -32021}, {CodeUnsupportedProtocolVersion, -32022},
		{CodeTooManySubscriptions, -31001}, {CodeRateLimited, -31029},
	} {
		if tc.got != tc.want {
			t.Errorf("code = %d, want %d", tc.got, tc.want)
		}
	}
}

func mustDecodeID(t *testing.T, raw string) ID {
	t.Helper()
	var id ID
	if err := json.Unmarshal([]byte(raw), &id); err != nil {
		t.Fatalf("decode id %s: %v", raw, err)
	}
	return id
}

func BenchmarkEncodeResult(b *testing.B) {
	result := map[string]any{
		"content": []map[string]any{{"type": "text", "text": `{"iid":1234,"title":"Fix <script> & co","state":"opened"}`}},
		"isError": false,
	}
	id := intID(42)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeResult(id, result); err != nil {
			b.Fatal(err)
		}
	}
}

type rawAppender string

func (r rawAppender) AppendJSON(dst []byte) ([]byte, error) { return append(dst, r...), nil }
func (r rawAppender) SizeHint() int                         { return len(r) }

func TestEncodeResult_appender(t *testing.T) {
	b, err := EncodeResult(intID(7), rawAppender(`{"tools":[{"name":"a<b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a<b"}]}}`; string(b) != want {
		t.Fatalf("EncodeResult = %s, want %s", b, want)
	}
	if cap(b) < len(b) || cap(b) > 256+len(`{"tools":[{"name":"a<b"}]}`)+64 {
		t.Errorf("cap = %d: the size hint was not used", cap(b))
	}
}

// Ensure a notification appended from encoded pieces is byte for byte the
// encoded one, whatever its method needs escaped, and lands after dst.
func TestAppendNotification(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"notifications/tools/list_changed", `a"b<&>\`, "é\u2028", "tab\there", "bad\xffutf8"} {
		want, err := EncodeNotification(method, json.RawMessage(`{"_meta":{"k":"s-1"}}`))
		if err != nil {
			t.Fatal(err)
		}
		got := AppendNotification([]byte("x"), method, []byte(`{"_meta":{"k":`), []byte(`"s-1"`), []byte(`}}`))
		if string(got) != "x"+string(want) {
			t.Errorf("AppendNotification(%q) =\n %s\nwant\n x%s", method, got, want)
		}
	}
}
