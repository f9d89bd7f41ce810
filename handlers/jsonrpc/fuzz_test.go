package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecode checks that Decode never panics and agrees with encoding/json:
// a body it accepts is an object whose members, read by encoding/json, are
// the ones Decode returned, and the id survives an encode/decode round trip.
func FuzzDecode(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.body))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"s":"\"}\\","n":[{},[]]}}}`,
		`{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"\u00e9"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"m","\u0000":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\\\\\""}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, rpcErr := decode(body)

		if valid := json.Valid(body); valid == (rpcErr != nil && rpcErr.Code == CodeParseError) {
			t.Fatalf("json.Valid = %v but Decode error = %v", valid, rpcErr)
		}
		if rpcErr != nil {
			if rpcErr.Code != CodeParseError && rpcErr.Code != CodeInvalidRequest {
				t.Fatalf("unexpected code %d", rpcErr.Code)
			}
			var id ID
			if req != nil {
				id = req.ID
				if req.Method != "" || req.Params != nil {
					t.Fatalf("error Request carries more than the id: %+v", req)
				}
			}
			out, err := EncodeError(id, rpcErr)
			if err != nil || !json.Valid(out) {
				t.Fatalf("EncodeError = %s, %v; want valid JSON", out, err)
			}
			return
		}

		if req.Method == "" {
			t.Fatal("accepted an empty method")
		}
		if req.Params != nil && (req.Params[0] != '{' || !json.Valid(req.Params)) {
			t.Fatalf("params %s is not an object", req.Params)
		}

		// encoding/json's reading of the same body must agree.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("Decode accepted what encoding/json refuses: %v", err)
		}
		var version, method string
		if err := json.Unmarshal(m["jsonrpc"], &version); err != nil || version != Version {
			t.Fatalf("jsonrpc = %s", m["jsonrpc"])
		}
		if err := json.Unmarshal(m["method"], &method); err != nil || method != req.Method {
			t.Fatalf("method: encoding/json %q (%v), Decode %q", method, err, req.Method)
		}
		if p, ok := m["params"]; ok != (req.Params != nil) || !bytes.Equal(p, req.Params) {
			t.Fatalf("params: encoding/json %s, Decode %s", p, req.Params)
		}
		if raw, ok := m["id"]; ok != !req.ID.IsZero() || string(raw) != req.ID.String() {
			t.Fatalf("id: encoding/json %s, Decode %s", raw, req.ID)
		}

		// The id re-encodes to valid JSON and decodes back to the same bytes.
		idJSON, err := req.ID.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		if req.ID.IsZero() {
			return
		}
		again, rpcErr := decode([]byte(`{"jsonrpc":"2.0","id":` + string(idJSON) + `,"method":"m"}`))
		if rpcErr != nil || again.ID.String() != req.ID.String() {
			t.Fatalf("id %s did not round-trip: %+v, %v", idJSON, again, rpcErr)
		}
		out, err := EncodeResult(req.ID, struct{}{})
		if err != nil || !json.Valid(out) {
			t.Fatalf("EncodeResult = %s, %v; want valid JSON", out, err)
		}
	})
}
