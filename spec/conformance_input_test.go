package spec

import (
	"net/http"
	"strings"
	"testing"
)

// confAccept is an accepted elicitation answer.
func confAccept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

// confRetry sends a Modern tools/call retry as user with inputResponses and
// requestState (omitted when nil / "").
func confRetry(t testing.TB, h *harness, user, name string, args map[string]any, caps map[string]any, responses any, state string) *response {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": name, "arguments": args, "_meta": metaWith(caps, nil)}
	if responses != nil {
		params["inputResponses"] = responses
	}
	if state != "" {
		params["requestState"] = state
	}
	return h.send(t, call{Era: modern, User: user, ID: 31, Method: "tools/call", Params: params})
}

// confAllCaps are the client capabilities the suite declares by default.
var confAllCaps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}}

// confInputRequired checks an input_required answer and returns its result.
func confInputRequired(t testing.TB, r *response) map[string]any {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	validateResult(t, revModern, "InputRequiredResult", r.Body)
	res := r.result(t)
	if res["resultType"] != "input_required" {
		t.Fatalf("resultType = %v, want input_required: %s", res["resultType"], r.Body)
	}
	return res
}

// Ensure a tool asking for input answers input_required (schema-valid),
// and completes when retried with the answers and the sealed state, over
// two rounds whose states differ.
func TestConformance_inputRequiredRoundTrip(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	const tool = "test_input_required_result_multi_round"
	r1 := confInputRequired(t, confRetry(t, h, "alice", tool, nil, confAllCaps, nil, ""))
	state1, _ := r1["requestState"].(string)
	if state1 == "" || strings.Contains(state1, "round") {
		t.Fatalf("round 1 requestState %q: want an opaque sealed state", state1)
	}
	r2 := confInputRequired(t, confRetry(t, h, "alice", tool, nil, confAllCaps,
		map[string]any{"step1": confAccept(map[string]any{"name": "Alice"})}, state1))
	state2, _ := r2["requestState"].(string)
	if state2 == "" || state2 == state1 {
		t.Fatalf("round 2 requestState %q, want a new one", state2)
	}
	if _, ok := r2["inputRequests"].(map[string]any)["step2"]; !ok {
		t.Fatalf("round 2 asks %v, want step2", r2["inputRequests"])
	}
	r3 := confRetry(t, h, "alice", tool, nil, confAllCaps,
		map[string]any{"step2": confAccept(map[string]any{"color": "blue"})}, state2)
	validateResult(t, revModern, "CallToolResult", r3.Body)
	res := r3.result(t)
	if text := res["content"].([]any)[0].(map[string]any)["text"]; res["resultType"] != "complete" || text != "Multi-round complete: Alice likes blue" {
		t.Fatalf("round 3 = %s", r3.Body)
	}
}

// Ensure a requestState is refused (-32602, before the tool runs) when
// altered, presented by another user, or for other arguments.
func TestConformance_inputRequiredStateProtected(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	const tool = "test_input_required_result_tampered_state"
	state, _ := confInputRequired(t, confRetry(t, h, "alice", tool, nil, confAllCaps, nil, ""))["requestState"].(string)
	answer := map[string]any{"confirm": confAccept(map[string]any{"ok": true})}
	for name, r := range map[string]func() *response{
		"tampered":   func() *response { return confRetry(t, h, "alice", tool, nil, confAllCaps, answer, state+"-TAMPERED") },
		"other user": func() *response { return confRetry(t, h, "bob", tool, nil, confAllCaps, answer, state) },
		"other args": func() *response {
			return confRetry(t, h, "alice", tool, map[string]any{"x": 1}, confAllCaps, answer, state)
		},
		"not a state": func() *response { return confRetry(t, h, "alice", tool, nil, confAllCaps, answer, "protected") },
	} {
		t.Run(name, func(t *testing.T) {
			msg, _ := r().expectError(t, http.StatusBadRequest, -32602)
			if !strings.Contains(msg, "requestState") {
				t.Errorf("message %q does not name requestState", msg)
			}
		})
	}
	t.Run("intact", func(t *testing.T) {
		r := confRetry(t, h, "alice", tool, nil, confAllCaps, answer, state)
		validateResult(t, revModern, "CallToolResult", r.Body)
		if res := r.result(t); res["resultType"] != "complete" || res["isError"] == true {
			t.Fatalf("intact state: %s", r.Body)
		}
	})
}

// Ensure malformed inputResponses are protocol errors, never a completed
// call.
func TestConformance_inputResponsesValidated(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	for name, responses := range map[string]any{
		"null":         nil,
		"array":        []any{1},
		"number value": map[string]any{"user_name": 12345},
		"null value":   map[string]any{"user_name": nil},
	} {
		t.Run(name, func(t *testing.T) {
			params := map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{},
				"_meta": metaWith(confAllCaps, nil), "inputResponses": responses}
			r := h.send(t, call{Era: modern, User: "alice", ID: 32, Method: "tools/call", Params: params})
			msg, _ := r.expectError(t, http.StatusBadRequest, -32602)
			if !strings.Contains(msg, "inputResponses") {
				t.Errorf("message %q does not name inputResponses", msg)
			}
		})
	}
}

// Ensure input the client cannot give (capability not declared) is -32021
// naming it, and that Legacy requests, which cannot carry the round trip,
// get an error result.
func TestConformance_inputRequiredCapabilities(t *testing.T) {
	h := startServer(t, withConformanceFixtures())
	r := confRetry(t, h, "alice", "test_input_required_result_elicitation", nil, map[string]any{"sampling": map[string]any{}}, nil, "")
	_, data := r.expectError(t, http.StatusBadRequest, -32021)
	validateMessage(t, revModern, "MissingRequiredClientCapabilityError", r.Body)
	if got := data.(map[string]any)["requiredCapabilities"].(map[string]any); len(got) != 1 || got["elicitation"] == nil {
		t.Errorf("requiredCapabilities = %v, want elicitation only", got)
	}

	legacy := confCall(t, h, 33, "test_input_required_result_elicitation", nil, nil, nil, nil)
	validateResult(t, rev20251125, "CallToolResult", legacy.Body)
	res := legacy.result(t)
	text, _ := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if res["isError"] != true || !strings.Contains(text, "2026-07-28") {
		t.Errorf("Legacy answer = %s, want an error result naming 2026-07-28", legacy.Body)
	}
}
