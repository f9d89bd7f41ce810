package audit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// TestEvent: the event names the project or group the target link
// resolved, canonical, over what the arguments say; without a resolution
// it keeps the arguments' own; the outcome follows how the call ended;
// never an argument value.
func TestEvent(t *testing.T) {
	alice := &models.Identity{User: &models.User{ID: 7, Username: "alice"}, TokenID: 9}
	project := &models.Project{ID: 3, PathWithNamespace: "gitlab-org/gitlab-mcp"}
	group := &models.Group{ID: 4, FullPath: "gitlab-org"}
	args := json.RawMessage(`{"url":"https://gitlab.example.com/gitlab-org/gitlab-mcp/-/work_items/1","body":"glpat-secret","project_id":3}`)
	inv := func(target *tools.ResolvedTarget) *tools.Invocation {
		return &tools.Invocation{
			Request: tools.CallRequest{Scope: models.Scope{Identity: alice}, Name: "create_workitem_note", Arguments: args,
				Caller: &tools.Caller{ClientName: "cli", ClientVersion: "1", RequestID: "req-1"}},
			Entry: &tools.Entry{Tool: models.Tool{Name: "save_note"}},
			Call:  &tools.Call{Target: target},
		}
	}
	for _, c := range []struct {
		name             string
		target           *tools.ResolvedTarget
		res              *tools.Result
		err              error
		wantTarget, kind string
		outcome          models.AuditOutcome
	}{
		{"resolved project", &tools.ResolvedTarget{Project: project}, &tools.Result{}, nil, "gitlab-org/gitlab-mcp", "project", models.AuditSuccess},
		{"resolved group", &tools.ResolvedTarget{Group: group}, &tools.Result{IsError: true}, nil, "gitlab-org", "group", models.AuditToolError},
		{"nothing resolved: as written", &tools.ResolvedTarget{}, &tools.Result{IsError: true, Refused: true}, nil, "3", "project", models.AuditRefused},
		{"no target: as written", nil, nil, errors.New("boom"), "3", "project", models.AuditFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := event(inv(c.target), time.Now(), c.res, c.err)
			if e.Target != c.wantTarget || e.TargetType != c.kind || e.Outcome != c.outcome {
				t.Errorf("target %q (%s), outcome %s; want %q (%s), %s", e.Target, e.TargetType, e.Outcome, c.wantTarget, c.kind, c.outcome)
			}
			if e.Tool != "save_note" || e.UserID != 7 || e.Username != "alice" || e.TokenID != 9 || e.ClientName != "cli" ||
				e.ClientVersion != "1" || e.CorrelationID != "req-1" || e.ArgumentNames != "body,project_id,url" {
				t.Errorf("event = %+v", e)
			}
			if strings.Contains(e.Target+e.ArgumentNames, "glpat") {
				t.Errorf("an argument value in the event: %+v", e)
			}
		})
	}
	// A call refused before the tool was found: the name as sent.
	i := inv(nil)
	i.Entry, i.Call = nil, nil
	if e := event(i, time.Now(), nil, errors.New("invalid params")); e.Tool != "create_workitem_note" || e.Outcome != models.AuditFailed {
		t.Errorf("refused before the tool link: %+v", e)
	}
}

// TestLink_callerOnly: a call without a Caller (resources/read reading
// through a tool) is not a client's tools/call and records nothing; one
// with a Caller records exactly one event, however it ends.
func TestLink_callerOnly(t *testing.T) {
	var got []models.AuditEvent
	l := Link(func(e models.AuditEvent) { got = append(got, e) })
	inv := &tools.Invocation{Request: tools.CallRequest{Name: "get_issue"}}
	_, err := l.Run(context.Background(), inv)
	if err == nil || len(got) != 0 {
		t.Fatalf("no caller: err %v, %d events; want the chain's error and none", err, len(got))
	}
	inv = &tools.Invocation{Request: tools.CallRequest{Name: "get_issue", Caller: &tools.Caller{RequestID: "r"}}}
	if _, err := l.Run(context.Background(), inv); err == nil || len(got) != 1 || got[0].Outcome != models.AuditFailed || got[0].CorrelationID != "r" {
		t.Fatalf("caller: err %v, events %+v; want one failed event", err, got)
	}
}

// TestArguments: the names of the top-level members, sorted, each once;
// the target argument's value as written; nothing for what is not an
// object.
func TestArguments(t *testing.T) {
	for _, c := range []struct{ raw, names, target, kind string }{
		{`{"project_id":"g/p","body":"x"}`, "body,project_id", "g/p", "project"},
		{` { "b" : {"project_id":"nested","x":[1,{"y":"}"}]} , "a\u0041":1, "project_id" : 42 } `, "aA,b,project_id", "42", "project"},
		{`{"full_path":"g","group_id":"h"}`, "full_path,group_id", "g", "namespace"},
		{`{"group_id":7,"group_id":8}`, "group_id", "8", "group"},
		{`{"project_id":"","group_id":true,"q":"\"project_id\":1"}`, "group_id,project_id,q", "", ""},
		{`{}`, "", "", ""},
		{`[{"project_id":1}]`, "", "", ""},
		{`{"project_id":`, "", "", ""},
		{``, "", "", ""},
		{`{"a"`, "", "", ""},
		{`{"a":`, "", "", ""},
		{`{"a" 1}`, "", "", ""},
		{`{a:1}`, "", "", ""},
		{`{"a":"unterminated`, "", "", ""},
		{`{"a":[1,2`, "", "", ""},
	} {
		names, target, kind := arguments(&tools.CallRequest{Arguments: json.RawMessage(c.raw)})
		if names != c.names || target != c.target || kind != c.kind {
			t.Errorf("arguments(%s) = %q, %q, %q; want %q, %q, %q", c.raw, names, target, kind, c.names, c.target, c.kind)
		}
	}
}

// FuzzArguments: whatever the bytes, arguments answers without a panic.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"project_id":"g/p","body":"x"}`, `{"a":[1,{"b":"}"}],"c":"\\""}`, `{"a"`, `{`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		arguments(&tools.CallRequest{Arguments: json.RawMessage(s)})
	})
}

// BenchmarkArguments: what the audit link reads of a call's arguments.
func BenchmarkArguments(b *testing.B) {
	args := json.RawMessage(`{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":1,"body":"` + strings.Repeat("text ", 200) + `"}`)
	for b.Loop() {
		arguments(&tools.CallRequest{Arguments: args})
	}
}

// BenchmarkEvent: building the event of a get_issue call whose project
// the target link resolved, as the audit link does once per call
// (allocations per call: -benchmem).
func BenchmarkEvent(b *testing.B) {
	inv := &tools.Invocation{
		Request: tools.CallRequest{Scope: models.Scope{Identity: &models.Identity{User: &models.User{ID: 7, Username: "alice"}, TokenID: 9}},
			Name: "get_issue", Arguments: json.RawMessage(`{"project_id":"gitlab-org/gitlab-mcp","issue_iid":1}`),
			Caller: &tools.Caller{ClientName: "cli", ClientVersion: "1", RequestID: "req-1"}},
		Entry: &tools.Entry{Tool: models.Tool{Name: "get_issue"}},
		Call:  &tools.Call{Target: &tools.ResolvedTarget{Project: &models.Project{ID: 3, PathWithNamespace: "gitlab-org/gitlab-mcp"}}},
	}
	inv.Request.ArgumentNames() // the chain's parse, made before the link reads it
	res := &tools.Result{}
	start := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		_ = event(inv, start, res, nil)
	}
}
