package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

func newTestExchange(t *testing.T) (*exchange, *httptest.ResponseRecorder) {
	t.Helper()
	gin.SetMode(gin.TestMode)
	rec := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(rec)
	c.Request = httptest.NewRequest(http.MethodPost, "/", nil)
	req, rerr := jsonrpc.NewDecoder(nil).Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	if rerr != nil {
		t.Fatal(rerr)
	}
	return &exchange{c: c, ctx: context.Background(), req: req}, rec
}

// streaming reports whether x's response became an event stream.
func streaming(x *exchange) bool { return x.stream != nil && x.stream.started() }

// dataLines returns the SSE data payloads of body.
func dataLines(body string) []string {
	var out []string
	for line := range strings.SplitSeq(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestProgressStream_reportsOnlyIncreasingProgressThenTheResult(t *testing.T) {
	x, rec := newTestExchange(t)
	p := &progressStream{x: x, token: json.RawMessage(`"tok"`)}
	p.report(1, 4, "one")
	p.report(1, 4, "same again") // must increase: dropped
	p.report(0.5, 4, "back")     // dropped
	p.report(2.5, 0, "no total")
	if !streaming(x) {
		t.Fatal("streaming() = false after a report")
	}
	x.stream.finish(map[string]any{"ok": true}, nil)
	p.report(3, 4, "after the end") // dropped: progress stops with the response

	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":4,"message":"one"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2.5,"message":"no total"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`,
	}
	got := dataLines(rec.Body.String())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stream =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestProgressStream_internalErrorIsNotLeaked(t *testing.T) {
	x, rec := newTestExchange(t)
	p := &progressStream{x: x, token: json.RawMessage(`7`)}
	p.report(1, 0, "")
	x.stream.finish(nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "pq: secret detail", nil))
	got := dataLines(rec.Body.String())
	if len(got) != 2 || got[1] != `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}` {
		t.Errorf("stream = %q", got)
	}
}

func TestProgressStream_ignoresTokensThatAreNotStringsOrIntegers(t *testing.T) {
	for _, tok := range []string{`1.5`, `{}`, `[1]`, `true`, `1e3`, `"unterminated`} {
		x, rec := newTestExchange(t)
		p := &progressStream{x: x, token: json.RawMessage(tok)}
		p.report(1, 2, "x")
		if streaming(x) || rec.Body.Len() != 0 {
			t.Errorf("token %s: streaming %v, body %q; want no stream", tok, streaming(x), rec.Body.String())
		}
	}
	for _, tok := range []string{`"a"`, `0`, `-3`, `9007199254740993`} {
		if !validProgressToken(json.RawMessage(tok)) {
			t.Errorf("validProgressToken(%s) = false, want true", tok)
		}
	}
}
