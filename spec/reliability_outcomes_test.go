package spec

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// Issue #13 item 10: tool failures are visible. Every tools/call is logged
// with its outcome (ok, tool_error, refused, protocol_error) and error
// class, and glmcp_tool_calls_total counts it by outcome, so an isError
// result (HTTP 200) is no longer counted as a success. A 401 or 403 is
// logged with its reason, never with the token.
func TestReliability_toolOutcomesVisible(t *testing.T) {
	var logs authSyncBuffer
	h := startServerLogged(t, &logs)
	readOnly, _ := authMint(t, h, "alice", []string{"read_api"}, authDay(7))
	h.Tokens["alice-ro"] = readOnly
	setRule(t, h, "acme", "create_issue", models.RuleDeny)

	type want struct {
		tool, status, outcome, class string
	}
	calls := []struct {
		name   string
		user   string
		era    string
		tool   string
		args   map[string]any
		status int
		want   want
	}{
		{"success", "alice", modern, "get_mcp_server_version", map[string]any{}, 200,
			want{"get_mcp_server_version", "200", "ok", ""}},
		{"not found is a tool error", "alice", modern, "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 999}, 200,
			want{"get_workitem_notes", "200", "tool_error", "not_found"}},
		{"bad arguments are a tool error", "alice", legacy, "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": "x"}, 200,
			want{"get_workitem_notes", "200", "tool_error", "validation"}},
		{"a Deny rule refuses", "alice", modern, "create_issue", map[string]any{"id": "acme/secret-plans", "title": "t"}, 200,
			want{"create_issue", "200", "refused", "rule_denied"}},
		{"a read-only token is refused a write", "alice-ro", modern, "create_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t"}, 403,
			want{"create_issue", "403", "refused", "insufficient_scope"}},
		{"an unknown tool is a protocol error", "alice", modern, "no_such_tool", map[string]any{}, 400,
			want{"(unknown)", "400", "protocol_error", "invalid_params"}},
	}
	requestIDs := map[string]string{}
	for _, c := range calls {
		series := `glmcp_tool_calls_total{outcome="` + c.want.outcome + `",status="` + c.want.status + `",tool="` + c.want.tool + `"}`
		before := metricSample(t, h, series)
		r := h.send(t, call{Era: c.era, User: c.user, Method: "tools/call", Params: map[string]any{"name": c.tool, "arguments": c.args}})
		r.expectStatus(t, c.status)
		if c.status == 200 && !strings.HasPrefix(c.want.outcome, "protocol") {
			res := r.ok(t)
			if isErr, _ := res["isError"].(bool); isErr != (c.want.outcome != "ok") {
				t.Errorf("%s: isError = %v for outcome %s", c.name, isErr, c.want.outcome)
			}
		}
		if got := metricSample(t, h, series); got != before+1 {
			t.Errorf("%s: %s went from %v to %v, want one more", c.name, series, before, got)
		}
		requestIDs[c.name] = r.Header.Get("X-Request-Id")
	}
	// The tool error is not counted as a success.
	if n := metricSample(t, h, `glmcp_tool_calls_total{outcome="ok",status="200",tool="get_workitem_notes"}`); n != 0 {
		t.Errorf("get_workitem_notes ok series = %v, want 0: both calls failed", n)
	}

	// A 401 and a 403 that never reach a tool.
	badToken := otherLastChar(h.Tokens["bob"])
	r401 := h.send(t, call{Token: badToken, Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version"}})
	r401.expectStatus(t, http.StatusUnauthorized)
	r403 := h.send(t, call{User: "dave", Method: "tools/call", Params: map[string]any{"name": "get_mcp_server_version"}}) // blocked
	r403.expectStatus(t, http.StatusForbidden)

	// Every line is written once the server stops.
	h.Server.BeginShutdown()
	h.HTTP.Close()
	h.Server.Stop()
	lines := logLines(t, logs.String())
	for _, c := range calls {
		l := lines[requestIDs[c.name]]
		if l == nil {
			t.Errorf("%s: no access-log line for request %s", c.name, requestIDs[c.name])
			continue
		}
		if l["outcome"] != c.want.outcome || (c.want.class != "" && l["error_class"] != c.want.class) {
			t.Errorf("%s: logged outcome=%v error_class=%v, want %s %s (line %v)", c.name, l["outcome"], l["error_class"], c.want.outcome, c.want.class, l)
		}
		if c.want.class == "" {
			if _, ok := l["error_class"]; ok {
				t.Errorf("%s: a success logged error_class %v", c.name, l["error_class"])
			}
		}
		if c.want.class == "insufficient_scope" && !strings.Contains(str(l["reason"]), "read_api") {
			t.Errorf("%s: the 403 line's reason is %q, want the read_api explanation", c.name, l["reason"])
		}
	}
	l := lines[r401.Header.Get("X-Request-Id")]
	if l == nil || l["status"] != float64(401) || l["auth_error"] != "unauthenticated" || str(l["reason"]) == "" {
		t.Errorf("the 401 line = %v, want status 401, auth_error unauthenticated and a reason", l)
	}
	l = lines[r403.Header.Get("X-Request-Id")]
	if l == nil || l["status"] != float64(403) || l["auth_error"] != "user_forbidden" || !strings.Contains(str(l["reason"]), "blocked") {
		t.Errorf("the 403 line = %v, want status 403, auth_error user_forbidden and the reason", l)
	}
	for _, tok := range []string{badToken, h.Tokens["bob"], h.Tokens["dave"], readOnly} {
		if strings.Contains(logs.String(), tok) {
			t.Fatalf("the log holds a token")
		}
	}
}

// metricSample returns the value of one series of /metrics (0 when it is
// not there yet).
func metricSample(t testing.TB, h *harness, series string) float64 {
	t.Helper()
	r := h.send(t, call{Verb: http.MethodGet, URL: h.URL + "/metrics"})
	r.expectStatus(t, http.StatusOK)
	for _, line := range strings.Split(string(r.Body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// logLines indexes the access-log lines of a JSON log by request id.
func logLines(t testing.TB, out string) map[string]map[string]any {
	t.Helper()
	lines := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil || m["msg"] != "request" {
			continue
		}
		if id, _ := m["request_id"].(string); id != "" {
			lines[id] = m
		}
	}
	return lines
}

// str is v if it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// Ensure a tools/call whose client hangs up mid-stream is logged and
// counted as canceled (error class client_closed), not as ok: its status
// is the stream's 200, but nothing was answered.
func TestReliability_canceledCallOutcome(t *testing.T) {
	var logs authSyncBuffer
	h := startServerLogged(t, &logs, withConformanceFixtures())
	const series = `glmcp_tool_calls_total{outcome="canceled",status="200",tool="test_tool_with_progress"}`
	before := metricSample(t, h, series)
	c := call{Era: modern, User: "alice", Method: "tools/call", Params: map[string]any{
		"name": "test_tool_with_progress", "arguments": map[string]any{},
		"_meta": metaWith(nil, map[string]any{"progressToken": "p"}),
	}}
	s, r := h.open(t, c)
	if s == nil {
		t.Fatalf("no progress stream (status %d)", r.Status)
	}
	validateMessage(t, revModern, "ProgressNotification", s.nextMessage(t)) // progress 0; the tool sleeps before 50
	id := s.Resp.Header.Get("X-Request-Id")
	s.Close()
	deadline := time.Now().Add(10 * time.Second)
	for metricSample(t, h, series) != before+1 {
		if time.Now().After(deadline) {
			t.Fatalf("%s stayed at %v after the client hung up", series, before)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := metricSample(t, h, `glmcp_tool_calls_total{outcome="ok",status="200",tool="test_tool_with_progress"}`); n != 0 {
		t.Errorf("the hung-up call counted as ok (%v)", n)
	}
	h.Server.BeginShutdown()
	h.HTTP.Close()
	h.Server.Stop()
	l := logLines(t, logs.String())[id]
	if l == nil || l["outcome"] != "canceled" || l["error_class"] != "client_closed" {
		t.Errorf("the access-log line = %v, want outcome canceled, error_class client_closed", l)
	}
}

// otherLastChar is token with its last character changed (never to
// itself: a token ending in "x" stayed valid when "x" was appended).
func otherLastChar(token string) string {
	last := "x"
	if strings.HasSuffix(token, "x") {
		last = "y"
	}
	return token[:len(token)-1] + last
}
