package jsonrpc

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestWriteResult(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	if err := WriteResult(rec, stringID("req-1"), map[string]string{"html": "<b>&</b>"}); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":"req-1","result":{"html":"<b>&</b>"}}`
	assertResponse(t, rec, http.StatusOK, want)
}

// Ensure answers built in reused buffers stay whole: each response holds
// its own bytes after the next one was written, whatever their sizes.
func TestWriteResult_reusedBuffers(t *testing.T) {
	t.Parallel()
	var recs []*httptest.ResponseRecorder
	var wants []string
	for i, n := range []int{10, 5000, 3, 70000, 1, 2 << 20, 7} {
		text := strings.Repeat(strconv.Itoa(i), n)
		rec := httptest.NewRecorder()
		if err := WriteResult(rec, intID(int64(i)), map[string]string{"t": text}); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		wants = append(wants, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result":{"t":"`+text+`"}}`)
	}
	for i, rec := range recs {
		assertResponse(t, rec, http.StatusOK, wants[i])
	}
}

func TestWriteResult_unencodableIsInternal(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	if err := WriteResult(rec, intID(5), map[string]any{"c": make(chan int)}); err == nil {
		t.Error("WriteResult of an unencodable result returned no error")
	}
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
		{"invalid request", intID(1), InvalidRequest("Invalid Request: x"), 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: x"}}`},
		{"invalid params", stringID("a"), InvalidParams("bad"), 400, `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"Invalid params: bad"}}`},
		{"header mismatch", intID(1), NewError(CodeHeaderMismatch, "m", nil), 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}`},
		{"method not found", intID(2), MethodNotFound("nope"), 404, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: nope","data":{"method":"nope"}}}`},
		{"internal details never sent", intID(3), NewError(CodeInternalError, "pq: secret", map[string]int{"x": 1}), 500, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
		{"internal", intID(3), Internal(), 500, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
		{"nil error", intID(3), nil, 500, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
		{"unencodable data dropped", intID(4), NewError(CodeInvalidParams, "bad", make(chan int)), 400, `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}`},
		{"store unavailable", intID(5), StoreUnavailable(), 503, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Store unavailable: the database cannot be reached right now; retry later","data":{"retryAfterSeconds":5}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			WriteError(rec, EraModern, tc.id, tc.err)
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

// Ensure that in the Legacy era an error about a request the server read
// is sent with 200, and that the headers a status calls for are set.
func TestWriteError_eraAndHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		era     Era
		err     *Error
		status  int
		headers map[string]string
	}{
		{"legacy invalid params", EraLegacy, InvalidParams("x"), 200, nil},
		{"legacy method not found", EraLegacy, MethodNotFound("x"), 200, nil},
		{"modern invalid params", EraModern, InvalidParams("x"), 400, nil},
		{"legacy parse error", EraLegacy, parseError(), 400, nil},
		{"not POST", EraUnknown, MethodNotAllowed(), 405, map[string]string{"Allow": "POST"}},
		{"body timeout", EraUnknown, BodyTimeout(), 408, map[string]string{"Connection": "close"}},
		{"rate limited", EraUnknown, RateLimited("x", 0, nil), 429, map[string]string{"Retry-After": "1"}},
		{"store unavailable", EraLegacy, StoreUnavailable(), 503, map[string]string{"Retry-After": "5"}},
		{"instance cap", EraModern, Unavailable(CodeTooManySubscriptions, "x"), 503, map[string]string{"Retry-After": "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			WriteError(rec, tc.era, intID(1), tc.err)
			if rec.Code != tc.status {
				t.Errorf("status = %d, want %d", rec.Code, tc.status)
			}
			for k, v := range tc.headers {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}
