package spec

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Ensure subscriptions/listen answers an event stream whose first event is
// a schema-valid acknowledgement carrying the request id, with its JSON
// type, as the subscription id, and the honoured filter.
func TestListen_acknowledgement(t *testing.T) {
	h := startServer(t, withEE())
	for _, tc := range []struct {
		name     string
		endpoint string
		id       any
	}{
		{"integer id", h.CE, 7},
		{"string id", h.CE, "sub-1"},
		{"numeric string id stays a string", h.CE, "42"},
		{"EE group", h.EE, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := h.listen(t, listenCall(tc.endpoint, "alice", tc.id, toolsOnly()))
			s.Close()
		})
	}
}

// Ensure only what the client asked for and the server delivers is
// honoured: a listener asking for prompts and resources only gets an
// acknowledgement without toolsListChanged and hears nothing about tools.
func TestListen_honoursOnlyRequestedTypes(t *testing.T) {
	h := startServer(t)
	only := h.listen(t, listenCall("", "alice", "p", map[string]any{
		"promptsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": []string{"file:///x"},
	}))
	none := h.listen(t, listenCall("", "alice", "n", map[string]any{"toolsListChanged": false}))
	tools := h.listen(t, listenCall("", "alice", "t", toolsOnly()))

	h.publishChange("get_merge_request", "ce")
	expectListChanged(t, tools.nextMessage(t), "t")
	h.publishChange("", "") // a bulk change reaches every tools listener
	expectListChanged(t, tools.nextMessage(t), "t")

	h.Server.BeginShutdown()
	expectTranscript(t, only, "p", 0)
	expectTranscript(t, none, "n", 0)
	expectTranscript(t, tools, "t", 0)
}

// Ensure malformed listen requests get a clear JSON-RPC error, not a stream.
func TestListen_badRequests(t *testing.T) {
	h := startServer(t)
	wrongType := listenCall("", "alice", 2, nil)
	wrongType.Params["notifications"] = []int{1}
	badToolset := listenCall("", "alice", 3, toolsOnly())
	badToolset.Header = http.Header{"X-Gitlab-Enabled-Mcp-Server-Toolsets": {"nope"}}
	for _, tc := range []struct {
		name   string
		call   call
		status int
		code   int
		msg    string
	}{
		{"no notifications filter", listenCall("", "alice", 1, nil), 400, -32602, "notifications is required"},
		{"filter of the wrong type", wrongType, 400, -32602, "notifications must be an object"},
		{"unknown toolset header", badToolset, 400, -32602, "Unknown toolsets: nope. Valid toolsets: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, r := h.open(t, tc.call)
			if s != nil {
				t.Fatal("got an event stream, want an error")
			}
			msg, _ := r.expectError(t, tc.status, tc.code)
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("message = %q, want it to mention %q", msg, tc.msg)
			}
		})
	}
	// Legacy has no listen stream (and no GET stream): method not found.
	r := h.send(t, call{User: "alice", ID: 4, Method: "subscriptions/listen", Params: map[string]any{"notifications": toolsOnly()}})
	r.expectError(t, rpcStatus(legacy, http.StatusNotFound), -32601)
	// Without credentials there is no stream either.
	s, r := h.open(t, listenCall("", "", 5, toolsOnly()))
	if s != nil || r.Status != http.StatusUnauthorized {
		t.Fatalf("unauthenticated listen: stream %v, status %d; want 401", s != nil, r.Status)
	}
}

// Ensure server/discover advertises tools.listChanged on the Modern side,
// where listen delivers it, and initialize keeps it false on Legacy.
func TestListen_listChangedCapability(t *testing.T) {
	h := startServer(t)
	r := h.send(t, call{Era: modern, User: "alice", Method: "server/discover"})
	validateResult(t, revModern, "DiscoverResult", r.Body)
	if got := toolsListChanged(t, r.result(t)); got != true {
		t.Errorf("Modern capabilities.tools.listChanged = %v, want true", got)
	}
	r = h.send(t, call{User: "alice", ID: 2, Method: "initialize", Params: map[string]any{
		"protocolVersion": rev20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec", "version": "1"},
	}})
	validateResult(t, rev20251125, "InitializeResult", r.Body)
	if got := toolsListChanged(t, r.result(t)); got != false {
		t.Errorf("Legacy capabilities.tools.listChanged = %v, want false", got)
	}
}

func toolsListChanged(t *testing.T, res map[string]any) any {
	t.Helper()
	caps, _ := res["capabilities"].(map[string]any)
	tools, ok := caps["tools"].(map[string]any)
	if !ok {
		t.Fatalf("no capabilities.tools in %v", res)
	}
	return tools["listChanged"]
}

// Ensure an idle stream carries SSE comment keep-alives at the configured
// interval, and only after the acknowledgement.
func TestListen_keepAlive(t *testing.T) {
	h := startServer(t, withKeepAlive(time.Second))
	s := h.listen(t, listenCall("", "alice", 1, toolsOnly())) // ack first: checked
	for i := range 2 {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("stream ended: %v", s.err)
		}
		if !ev.IsComment {
			t.Fatalf("event %d on an idle stream = %q, want a keep-alive comment", i, ev.Data)
		}
		if ev.Comment != "keep-alive" {
			t.Errorf("comment = %q, want keep-alive", ev.Comment)
		}
	}
}

// Ensure BeginShutdown ends every listen stream with the final
// subscriptions/listen result (schema-valid, tagged with the subscription
// id) and then closes it, and refuses new streams with 503.
func TestListen_shutdownSendsFinalResult(t *testing.T) {
	h := startServer(t, withEE())
	ids := []any{1, "s-2", "3"}
	streams := []*sseStream{
		h.listen(t, listenCall("", "alice", ids[0], toolsOnly())),
		h.listen(t, listenCall(h.EE, "root", ids[1], toolsOnly())),
		h.listen(t, listenCall("", "bob", ids[2], map[string]any{"promptsListChanged": true})),
	}
	h.Server.BeginShutdown()
	for i, s := range streams {
		expectTranscript(t, s, ids[i], 0)
	}
	eventually(t, "hub empty after shutdown", func() bool { return h.Server.Hub().Len() == 0 })

	s, r := h.open(t, listenCall("", "alice", 9, toolsOnly()))
	if s != nil {
		t.Fatal("listen after shutdown opened a stream, want 503")
	}
	msg, _ := r.expectError(t, http.StatusServiceUnavailable, -31001)
	if !strings.Contains(msg, "shutting down") {
		t.Errorf("message = %q, want it to say the server is shutting down", msg)
	}
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	decodeJSONInto(t, r.Body, &env)
	if string(env.ID) != "9" {
		t.Errorf("error id = %s, want 9", env.ID)
	}
}
