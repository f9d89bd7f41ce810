package jsonrpc

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestWriteResult(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	WriteResult(rec, StringID("req-1"), map[string]string{"html": "<b>&</b>"})
	want := `{"jsonrpc":"2.0","id":"req-1","result":{"html":"<b>&</b>"}}`
	assertResponse(t, rec, http.StatusOK, want)
}

func TestWriteResult_unencodableIsInternal(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	WriteResult(rec, IntID(5), map[string]any{"c": make(chan int)})
	want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}`
	assertResponse(t, rec, http.StatusInternalServerError, want)
}

func TestWriteError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		id     ID
		err    *Error
		status int
		want   string
	}{
		{"parse error", ID{}, parseError(), 400, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`},
		{"invalid request", IntID(1), InvalidRequest("Invalid Request: x"), 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: x"}}`},
		{"invalid params", StringID("a"), InvalidParams("bad"), 400, `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad"}}`},
		{"header mismatch", IntID(1), NewError(CodeHeaderMismatch, "m", nil), 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}`},
		{"method not found", IntID(2), MethodNotFound("nope"), 404, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":{"method":"nope"}}}`},
		{"internal", IntID(3), Internal(), 500, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
		{"nil error", IntID(3), nil, 500, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
		{"unencodable data dropped", IntID(4), NewError(CodeInvalidParams, "bad", make(chan int)), 400, `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			WriteError(rec, tc.id, tc.err)
			assertResponse(t, rec, tc.status, tc.want)
		})
	}
}

func assertResponse(t *testing.T, rec *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	if rec.Code != status {
		t.Errorf("status = %d, want %d", rec.Code, status)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got)
	}
	if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length = %q, want %d", got, len(body))
	}
	if got := rec.Body.String(); got != body {
		t.Errorf("body =\n %s\nwant\n %s", got, body)
	}
}
