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
		{"object with int id", IntID(1), map[string]any{"tools": []string{}}, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		{"string id keeps quotes", StringID("1"), map[string]int{"n": 1}, `{"jsonrpc":"2.0","id":"1","result":{"n":1}}`},
		{"HTML not escaped", IntID(2), map[string]string{"text": "<a href=\"x\">&</a>"}, `{"jsonrpc":"2.0","id":2,"result":{"text":"<a href=\"x\">&</a>"}}`},
		{"decoded id echoed verbatim", mustDecodeID(t, `"a\u0062"`), struct{}{}, `{"jsonrpc":"2.0","id":"a\u0062","result":{}}`},
		{"nil result is an empty object", IntID(3), nil, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"nil map result is an empty object", IntID(3), map[string]any(nil), `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"raw message compacted", IntID(4), json.RawMessage(`{ "a" : 1 }`), `{"jsonrpc":"2.0","id":4,"result":{"a":1}}`},
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
	got, err := EncodeResult(IntID(1), map[string]any{"c": make(chan int)})
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
		{"int id", IntID(9), InvalidParams("unknown tool %q", "nope"), `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"unknown tool \"nope\""}}`},
		{"string id", StringID("9"), InvalidRequest("bad %d", 1), `{"jsonrpc":"2.0","id":"9","error":{"code":-32600,"message":"bad 1"}}`},
		{"method not found data", IntID(1), MethodNotFound("x/<y>&"), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"x/<y>&"}}}`},
		{"internal", IntID(1), Internal(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"nil error is internal", IntID(1), nil, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"custom data", IntID(1), NewError(CodeUnsupportedProtocolVersion, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "1999-01-01"}),
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
	if got, err := EncodeError(IntID(1), NewError(CodeInvalidParams, "x", func() {})); err == nil {
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
	if got, want := err.Error(), "jsonrpc error -32602: missing name"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e := NewError(CodeHeaderMismatch, "Header mismatch", map[string]string{"header": "Mcp-Method"})
	if e.Code != -32020 || e.Message != "Header mismatch" || e.Data == nil {
		t.Errorf("NewError() = %+v", e)
	}
}

func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code int
		want int
	}{
		{CodeParseError, 400},
		{CodeInvalidRequest, 400},
		{CodeInvalidParams, 400},
		{CodeHeaderMismatch, 400},
		{CodeMissingRequiredClientCapability, 400},
		{CodeUnsupportedProtocolVersion, 400},
		{CodeMethodNotFound, 404},
		{CodeInternalError, 500},
		{-32000, 500},
		{0, 500},
		{42, 500},
	} {
		if got := HTTPStatus(tc.code); got != tc.want {
			t.Errorf("HTTPStatus(%d) = %d, want %d", tc.code, got, tc.want)
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
	id := IntID(42)
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
	b, err := EncodeResult(IntID(7), rawAppender(`{"tools":[{"name":"a<b"}]}`))
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
