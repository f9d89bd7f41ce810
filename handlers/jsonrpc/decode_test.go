package jsonrpc

import (
	"strings"
	"testing"
	"unsafe"
)

// decodeCase is one raw body and the exact outcome Decode must give.
type decodeCase struct {
	name string
	body string

	// On success (code == 0).
	method string
	params string // "" means absent (nil)

	// On failure.
	code    int
	message string
	noReq   bool // Decode must return a nil *Request (id unreadable)

	// Both: the id's JSON text as it must be echoed, "" for the zero ID.
	id string
}

var decodeCases = []decodeCase{
	// Accepted.
	{name: "integer id", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, id: `1`, method: "ping"},
	{name: "string id keeps its type", body: `{"jsonrpc":"2.0","id":"1","method":"ping"}`, id: `"1"`, method: "ping"},
	{name: "negative id", body: `{"jsonrpc":"2.0","id":-5,"method":"ping"}`, id: `-5`, method: "ping"},
	{name: "zero id is an id", body: `{"jsonrpc":"2.0","id":0,"method":"ping"}`, id: `0`, method: "ping"},
	{name: "empty string id is an id", body: `{"jsonrpc":"2.0","id":"","method":"ping"}`, id: `""`, method: "ping"},
	{name: "id beyond int64 kept verbatim", body: `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, id: `123456789012345678901234567890`, method: "ping"},
	{name: "escaped string id kept as sent", body: `{"jsonrpc":"2.0","id":"a\u0062\"<>&","method":"ping"}`, id: `"a\u0062\"<>&"`, method: "ping"},
	{name: "unicode string id", body: `{"jsonrpc":"2.0","id":"é✓","method":"ping"}`, id: `"é✓"`, method: "ping"},
	{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized"},
	{name: "params object kept raw", body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_issue","arguments":{"id":[1,"}"]}}}`, id: `7`, method: "tools/call", params: `{"name":"get_issue","arguments":{"id":[1,"}"]}}`},
	{name: "empty params object", body: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`, id: `7`, method: "tools/list", params: `{}`},
	{name: "member order does not matter", body: `{"params":{"a":1},"method":"m","id":"x","jsonrpc":"2.0"}`, id: `"x"`, method: "m", params: `{"a":1}`},
	{name: "surrounding whitespace", body: " \r\n\t{ \"jsonrpc\" : \"2.0\" , \"id\" : 1 , \"method\" : \"ping\" , \"params\" : { } } \n", id: `1`, method: "ping", params: `{ }`},
	{name: "unknown members ignored", body: `{"jsonrpc":"2.0","id":1,"method":"ping","extra":[1,{"x":"y"}],"Method":"other","ID":null}`, id: `1`, method: "ping"},
	{name: "escaped member names are unescaped", body: `{"\u006asonrpc":"2.0","i\u0064":1,"m\u0065thod":"ping"}`, id: `1`, method: "ping"},
	{name: "escaped method value is unescaped", body: `{"jsonrpc":"2.0","id":1,"method":"tools\/list"}`, id: `1`, method: "tools/list"},
	{name: "escaped version value", body: `{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`, id: `1`, method: "ping"},
	{name: "request with result member is still a request", body: `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, id: `1`, method: "ping"},
	{name: "many unknown members", body: `{"jsonrpc":"2.0","id":1,"method":"ping","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`, id: `1`, method: "ping"},

	// Not JSON.
	{name: "empty body", body: ``, code: CodeParseError, message: "Parse error", noReq: true},
	{name: "whitespace only", body: " \n", code: CodeParseError, message: "Parse error", noReq: true},
	{name: "truncated", body: `{"jsonrpc":"2.0","id":1,"method":"ping"`, code: CodeParseError, message: "Parse error", noReq: true},
	{name: "trailing garbage", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}x`, code: CodeParseError, message: "Parse error", noReq: true},
	{name: "two objects", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, code: CodeParseError, message: "Parse error", noReq: true},
	{name: "single quotes", body: `{'jsonrpc':'2.0'}`, code: CodeParseError, message: "Parse error", noReq: true},
	{name: "trailing comma", body: `{"jsonrpc":"2.0","id":1,"method":"ping",}`, code: CodeParseError, message: "Parse error", noReq: true},
	{name: "invalid batch", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}`, code: CodeParseError, message: "Parse error", noReq: true},

	// Not one object.
	{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: CodeInvalidRequest, message: "Invalid Request: batch requests are not supported", noReq: true},
	{name: "empty batch", body: ` []`, code: CodeInvalidRequest, message: "Invalid Request: batch requests are not supported", noReq: true},
	{name: "string body", body: `"ping"`, code: CodeInvalidRequest, message: "Invalid Request: the message must be a JSON object", noReq: true},
	{name: "number body", body: `1`, code: CodeInvalidRequest, message: "Invalid Request: the message must be a JSON object", noReq: true},
	{name: "null body", body: `null`, code: CodeInvalidRequest, message: "Invalid Request: the message must be a JSON object", noReq: true},

	// Bad id: unreadable, so the error carries id null.
	{name: "null id", body: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "float id", body: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "integral float id", body: `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "exponent id", body: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "upper exponent id", body: `{"jsonrpc":"2.0","id":1E3,"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "bool id", body: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "object id", body: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "array id", body: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "invalid UTF-8 id", body: "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "repeated id", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "id" (member names must be unique)`, noReq: true},
	{name: "repeated id after another repeat", body: `{"jsonrpc":"2.0","method":"a","method":"b","id":1,"id":2}`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "id" (member names must be unique)`, noReq: true},
	{name: "repeated id via escape", body: `{"jsonrpc":"2.0","id":1,"\u0069d":2,"method":"ping"}`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "id" (member names must be unique)`, noReq: true},

	// Readable id, bad envelope: the id is echoed.
	{name: "repeated method", body: `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "method" (member names must be unique)`},
	{name: "repeated params", body: `{"jsonrpc":"2.0","id":"a","method":"ping","params":{},"params":{}}`, id: `"a"`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "params" (member names must be unique)`},
	{name: "repeated jsonrpc", body: `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "jsonrpc" (member names must be unique)`},
	{name: "repeated unknown member", body: `{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":2}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "x" (member names must be unique)`},
	{name: "repeated unknown member past the small set", body: `{"jsonrpc":"2.0","id":1,"method":"ping","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"a":0}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "a" (member names must be unique)`},
	{name: "repeated result in a request", body: `{"jsonrpc":"2.0","id":1,"method":"ping","result":1,"result":2}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "result" (member names must be unique)`},
	{name: "long repeated name is cut", body: `{"jsonrpc":"2.0","id":1,"method":"ping","` + strings.Repeat("n", 100) + `":1,"` + strings.Repeat("n", 100) + `":2}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: duplicate member "` + strings.Repeat("n", 64) + `…" (member names must be unique)`},
	{name: "result response", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: JSON-RPC responses are not accepted"},
	{name: "error response with null id", body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`, code: CodeInvalidRequest, message: "Invalid Request: id must be a string or an integer", noReq: true},
	{name: "error response", body: `{"jsonrpc":"2.0","id":"r","error":{"code":-32600,"message":"x"}}`, id: `"r"`, code: CodeInvalidRequest, message: "Invalid Request: JSON-RPC responses are not accepted"},
	{name: "missing jsonrpc", body: `{"id":1,"method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: jsonrpc must be "2.0"`},
	{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: jsonrpc must be "2.0"`},
	{name: "jsonrpc number", body: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: jsonrpc must be "2.0"`},
	{name: "jsonrpc with space", body: `{"jsonrpc":"2.0 ","id":1,"method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: jsonrpc must be "2.0"`},
	{name: "JSONRPC upper case", body: `{"JSONRPC":"2.0","id":1,"method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: `Invalid Request: jsonrpc must be "2.0"`},
	{name: "missing method", body: `{"jsonrpc":"2.0","id":1}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: method is required"},
	{name: "Method is not method", body: `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: method is required"},
	{name: "Id is not id", body: `{"jsonrpc":"2.0","Id":1}`, code: CodeInvalidRequest, message: "Invalid Request: method is required"},
	{name: "method null", body: `{"jsonrpc":"2.0","id":1,"method":null}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: method must be a string"},
	{name: "method number", body: `{"jsonrpc":"2.0","id":1,"method":1}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: method must be a string"},
	{name: "method empty", body: `{"jsonrpc":"2.0","id":1,"method":""}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: method must not be empty"},
	{name: "params array", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: params must be an object"},
	{name: "params null", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: params must be an object"},
	{name: "params string", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":"{}"}`, id: `1`, code: CodeInvalidRequest, message: "Invalid Request: params must be an object"},
	{name: "invalid notification is still an error", body: `{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}`, code: CodeInvalidRequest, message: "Invalid Request: params must be an object"},
	{name: "empty object", body: `{}`, code: CodeInvalidRequest, message: `Invalid Request: jsonrpc must be "2.0"`},
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := decode([]byte(tc.body))
			if tc.code == 0 {
				if err != nil {
					t.Fatalf("Decode(%s) error = %v, want success", tc.body, err)
				}
				if req.Method != tc.method {
					t.Errorf("Method = %q, want %q", req.Method, tc.method)
				}
				if tc.params == "" && req.Params != nil {
					t.Errorf("Params = %s, want nil", req.Params)
				}
				if tc.params != "" && string(req.Params) != tc.params {
					t.Errorf("Params = %s, want %s", req.Params, tc.params)
				}
				if req.IsNotification() != (tc.id == "") {
					t.Errorf("IsNotification() = %v, want %v", req.IsNotification(), tc.id == "")
				}
				assertID(t, req.ID, tc.id)
				return
			}
			if err == nil {
				t.Fatalf("Decode(%s) = %+v, want error %d", tc.body, req, tc.code)
			}
			if err.Code != tc.code || err.Message != tc.message || err.Data != nil {
				t.Errorf("error = {%d %q %v}, want {%d %q <nil>}", err.Code, err.Message, err.Data, tc.code, tc.message)
			}
			if tc.noReq {
				if req != nil {
					t.Errorf("Request = %+v, want nil (id unreadable)", req)
				}
				return
			}
			if req == nil {
				t.Fatal("Request = nil, want one carrying the id")
			}
			if req.Method != "" || req.Params != nil {
				t.Errorf("Request = %+v, want only the id set on error", req)
			}
			assertID(t, req.ID, tc.id)
		})
	}
}

// assertID checks id's JSON text ("" for the zero ID) and that it marshals
// back to the same bytes (null for the zero ID).
func assertID(t *testing.T, id ID, want string) {
	t.Helper()
	if got := id.String(); got != want {
		t.Errorf("ID = %s, want %s", got, want)
	}
	if id.IsZero() != (want == "") {
		t.Errorf("ID.IsZero() = %v, want %v", id.IsZero(), want == "")
	}
	b, err := id.MarshalJSON()
	if err != nil {
		t.Fatalf("ID.MarshalJSON() error = %v", err)
	}
	wantJSON := want
	if want == "" {
		wantJSON = "null"
	}
	if string(b) != wantJSON {
		t.Errorf("ID.MarshalJSON() = %s, want %s", b, wantJSON)
	}
}

func TestDecode_idEchoedInErrorEnvelope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":""}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: method must not be empty"}}`},
		{`{"jsonrpc":"2.0","id":"1","method":""}`, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"Invalid Request: method must not be empty"}}`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","method":1}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: method must be a string"}}`},
		{`{`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`},
	} {
		req, rpcErr := decode([]byte(tc.body))
		if rpcErr == nil {
			t.Fatalf("Decode(%s) succeeded, want error", tc.body)
		}
		var id ID
		if req != nil {
			id = req.ID
		}
		got, err := EncodeError(id, rpcErr)
		if err != nil {
			t.Fatalf("EncodeError() error = %v", err)
		}
		if string(got) != tc.want {
			t.Errorf("Decode(%s) then EncodeError =\n %s\nwant\n %s", tc.body, got, tc.want)
		}
	}
}

func TestDecode_paramsAliasBody(t *testing.T) {
	t.Parallel()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`)
	req, err := decode(body)
	if err != nil {
		t.Fatalf("Decode() error = %v", err)
	}
	// Documented: Params is a window on the body, not a copy.
	if &req.Params[0] != &body[len(body)-8] {
		t.Errorf("Params does not alias the body")
	}
}

func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_merge_request",` +
		`"arguments":{"id":"gitlab-org/gitlab","merge_request_iid":1234},` +
		`"_meta":{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.0"}}}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	d := NewDecoder([]string{"tools/call"})
	for b.Loop() {
		req, err := d.Decode(body)
		if err != nil || req.Method != "tools/call" {
			b.Fatalf("Decode() = %+v, %v", req, err)
		}
	}
}

func TestDecode_membersAreCapped(t *testing.T) {
	t.Parallel()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"x":0}`)
	req, err := decode(body)
	if err != nil {
		t.Fatalf("Decode() error = %v", err)
	}
	_ = append(req.Params, 'Z')
	if string(body) != `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"x":0}` {
		t.Errorf("appending to Params changed the body: %s", body)
	}
}

// decode decodes with the zero Decoder (no interned methods).
func decode(body []byte) (*Request, *Error) {
	var d Decoder
	return d.Decode(body)
}

// Ensure that an interned method decodes to the Decoder's own string, and
// that names it does not know decode all the same.
func TestDecoder_interns(t *testing.T) {
	t.Parallel()
	d := NewDecoder([]string{"tools/list"})
	req, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil || req.Method != "tools/list" {
		t.Fatalf("Decode = %+v, %v", req, err)
	}
	if unsafe.StringData(req.Method) != unsafe.StringData(d.methods["tools/list"]) {
		t.Errorf("method not interned")
	}
	if req, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"other\u002fx"}`)); err != nil || req.Method != "other/x" {
		t.Fatalf("Decode = %+v, %v", req, err)
	}
	if req, err := (*Decoder)(nil).Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`)); err != nil || req.Method != "m" {
		t.Fatalf("nil Decoder: %+v, %v", req, err)
	}
}
