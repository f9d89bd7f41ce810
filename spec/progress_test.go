package spec

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// searchCall is a Modern tools/call of search as alice, with
// _meta.progressToken when token is not nil.
func searchCall(id, token any) call {
	var extra map[string]any
	if token != nil {
		extra = map[string]any{"progressToken": token}
	}
	return call{Era: modern, User: "alice", ID: id, Method: "tools/call", Params: map[string]any{
		"name":      "search",
		"arguments": map[string]any{"scope": "issues", "search": "a"},
		"_meta":     metaWith(nil, extra),
	}}
}

// Ensure a Modern call whose client asked for progress is answered as an
// event stream: notifications/progress echoing the token (with its JSON
// type), strictly increasing, then the result for the request id.
func TestProgress_searchStreamsProgress(t *testing.T) {
	h := startServer(t)
	for _, tc := range []struct {
		name  string
		token any
	}{
		{"string token", "tok-1"},
		{"integer token", 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := searchCall("call-1", tc.token)
			s, r := h.open(t, sc)
			if s == nil {
				t.Fatalf("status %d, Content-Type %q: want an event stream; body %s", r.Status, r.Header.Get("Content-Type"), r.Body)
			}
			checkStreamHeaders(t, s.Resp)
			msgs := s.rest(t)
			if len(msgs) < 2 {
				t.Fatalf("stream carried %d messages, want progress and then the result", len(msgs))
			}
			last := -1.0
			for _, m := range msgs[:len(msgs)-1] {
				validateMessage(t, revModern, "JSONRPCNotification", m)
				validateMessage(t, revModern, "ProgressNotification", m)
				var n struct {
					Params struct {
						ProgressToken json.RawMessage `json:"progressToken"`
						Progress      float64         `json:"progress"`
						Total         *float64        `json:"total"`
						Message       string          `json:"message"`
					} `json:"params"`
				}
				decodeJSONInto(t, m, &n)
				if want := encodeJSONOf(t, tc.token); string(n.Params.ProgressToken) != string(want) {
					t.Errorf("progressToken = %s, want %s", n.Params.ProgressToken, want)
				}
				if n.Params.Progress <= last {
					t.Errorf("progress %v after %v: must increase", n.Params.Progress, last)
				}
				last = n.Params.Progress
				if n.Params.Total != nil && n.Params.Progress > *n.Params.Total {
					t.Errorf("progress %v beyond total %v", n.Params.Progress, *n.Params.Total)
				}
				if n.Params.Message == "" {
					t.Error("progress without a message")
				}
			}
			final := msgs[len(msgs)-1]
			validateResult(t, revModern, "CallToolResult", final)
			var res struct {
				ID     json.RawMessage `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			decodeJSONInto(t, final, &res)
			if string(res.ID) != `"call-1"` || res.Result.IsError {
				t.Errorf("final message = %s, want a successful result for id call-1", final)
			}
		})
	}
}

// Ensure calls without a usable progress token (the spec allows strings
// and integers) are answered as plain JSON.
func TestProgress_plainJSONWithoutToken(t *testing.T) {
	h := startServer(t)
	for _, tc := range []struct {
		name  string
		token any
	}{
		{"no token", nil},
		{"fractional token", 1.5},
		{"object token", map[string]any{"a": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := searchCall(3, tc.token)
			r := h.send(t, sc)
			if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d, Content-Type %q; want 200 JSON: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
			}
			validateResult(t, revModern, "CallToolResult", r.Body)
		})
	}
}

// Ensure Legacy (2025-11-25) calls asking for progress stream it too, as
// Streamable HTTP allows there, in that revision's schema.
func TestProgress_legacyStreamsProgress(t *testing.T) {
	h := startServer(t)
	s, r := h.open(t, call{User: "alice", ID: 4, Method: "tools/call", Params: map[string]any{
		"name": "search", "arguments": map[string]any{"scope": "issues", "search": "a"},
		"_meta": map[string]any{"progressToken": "legacy"},
	}})
	if s == nil {
		t.Fatalf("status %d, Content-Type %q: want an event stream; body %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	checkStreamHeaders(t, s.Resp)
	msgs := s.rest(t)
	if len(msgs) < 2 {
		t.Fatalf("stream carried %d messages, want progress and then the result", len(msgs))
	}
	for _, m := range msgs[:len(msgs)-1] {
		validateMessage(t, rev20251125, "ProgressNotification", m)
		if !strings.Contains(string(m), `"progressToken":"legacy"`) {
			t.Errorf("progress without the token: %s", m)
		}
	}
	validateResult(t, rev20251125, "CallToolResult", msgs[len(msgs)-1])
}

// Ensure closing a progress stream mid-call cancels the call without
// harm: nothing outlives it (client and server run in this process, so the
// goroutine count returns to the baseline) and the server goes on serving.
func TestProgress_closingTheStreamCancels(t *testing.T) {
	h := startServer(t)
	sc := searchCall(1, "warm")
	warm, _ := h.open(t, sc)
	if warm == nil {
		t.Fatal("no progress stream")
	}
	warm.rest(t)
	warm.Close()
	base := settledGoroutines()

	for i := range 5 {
		s, r := h.open(t, sc)
		if s == nil {
			t.Fatalf("call %d: no progress stream (status %d)", i, r.Status)
		}
		msg := s.nextMessage(t) // the first progress report, then hang up
		validateMessage(t, revModern, "ProgressNotification", msg)
		s.Close()
	}
	waitGoroutinesAtMost(t, base)

	r := h.send(t, call{Era: modern, User: "alice", ID: 2, Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version", "arguments": map[string]any{}}})
	if r.Status != http.StatusOK {
		t.Fatalf("call after cancelled streams: status %d: %s", r.Status, r.Body)
	}
	validateResult(t, revModern, "CallToolResult", r.Body)
}
