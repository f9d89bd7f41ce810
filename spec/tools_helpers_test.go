package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Helpers of the tool specs (tools_*_test.go): calling one tool over HTTP
// in both eras, asserting the outcome, and checking that a refused write
// left the store as it was.

// toolsCall sends tools/call of tool with args as user, in era, to g.
func (h *harness) toolsCall(t testing.TB, g group, era, user, tool string, args map[string]any) *response {
	t.Helper()
	params := map[string]any{"name": tool}
	if args != nil {
		params["arguments"] = args
	}
	r := h.send(t, call{Era: era, URL: g.URL, User: user, Method: "tools/call", Params: params})
	expectOutputShape(t, tool, r)
	return r
}

// toolsResult asserts a tools/call answer is HTTP 200 with a result that
// validates against the era's CallToolResult schema (and, in the Modern era,
// carries resultType and serverInfo) and returns the result.
func toolsResult(t testing.TB, g group, era string, r *response) map[string]any {
	t.Helper()
	r.expectStatus(t, http.StatusOK)
	validateResult(t, eraRev(era), "CallToolResult", r.Body)
	res := r.result(t)
	if era == "modern" {
		expectModernResult(t, res, g.ServerName)
	} else {
		expectLegacyResult(t, res)
	}
	return res
}

// toolsText returns the text of the single text block of a result.
func toolsText(t testing.TB, res map[string]any) string {
	t.Helper()
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content = %v, want one text block", res["content"])
	}
	block, _ := content[0].(map[string]any)
	if block["type"] != "text" {
		t.Fatalf("content[0] = %v, want a text block", block)
	}
	s, _ := block["text"].(string)
	return s
}

// toolsSucceeded asserts res is not an error and returns its
// structuredContent. For JSON answers the text block must hold the same
// document (GitLab's server sends both).
func toolsSucceeded(t testing.TB, res map[string]any) map[string]any {
	t.Helper()
	if res["isError"] == true {
		t.Fatalf("isError: %s", toolsText(t, res))
	}
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("structuredContent = %v, want an object", res["structuredContent"])
	}
	if text := toolsText(t, res); strings.HasPrefix(text, "{") {
		var fromText map[string]any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&fromText); err != nil {
			t.Fatalf("text block is not JSON: %v", err)
		}
		if !reflect.DeepEqual(fromText, sc) {
			t.Errorf("text block and structuredContent differ:\ntext %s\nsc   %v", text, sc)
		}
	}
	return sc
}

// toolsRead calls a read tool in both eras on g and returns the Modern
// structuredContent, asserting both eras answer the same.
func (h *harness) toolsRead(t testing.TB, g group, user, tool string, args map[string]any) map[string]any {
	t.Helper()
	var got [2]map[string]any
	for i, era := range eras {
		got[i] = toolsSucceeded(t, toolsResult(t, g, era, h.toolsCall(t, g, era, user, tool, args)))
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("%s: Legacy and Modern structuredContent differ:\nlegacy %v\nmodern %v", tool, got[0], got[1])
	}
	return got[1]
}

// toolsWrite calls a write tool once, in era, and returns its
// structuredContent.
func (h *harness) toolsWrite(t testing.TB, g group, era, user, tool string, args map[string]any) map[string]any {
	t.Helper()
	return toolsSucceeded(t, toolsResult(t, g, era, h.toolsCall(t, g, era, user, tool, args)))
}

// toolsFail calls tool in both eras and asserts a tool error (HTTP 200,
// isError true, no structuredContent) with the same text in both; it
// returns the text. Writes are checked against the store: nothing may
// change.
func (h *harness) toolsFail(t testing.TB, g group, user, tool string, args map[string]any) string {
	t.Helper()
	before := toolsState(t, h)
	var texts [2]string
	for i, era := range eras {
		res := toolsResult(t, g, era, h.toolsCall(t, g, era, user, tool, args))
		if res["isError"] != true {
			t.Fatalf("%s %s: isError = %v, want true; result %v", era, tool, res["isError"], res)
		}
		if sc, ok := res["structuredContent"]; ok {
			t.Errorf("%s %s: error result carries structuredContent %v", era, tool, sc)
		}
		texts[i] = toolsText(t, res)
	}
	if texts[0] != texts[1] {
		t.Errorf("%s: the eras disagree: Legacy %q, Modern %q", tool, texts[0], texts[1])
	}
	toolsExpectState(t, h, before)
	return texts[1]
}

// toolsFailWith is toolsFail asserting the exact text.
func (h *harness) toolsFailWith(t testing.TB, g group, user, tool string, args map[string]any, want string) {
	t.Helper()
	if got := h.toolsFail(t, g, user, tool, args); got != want {
		t.Errorf("%s as %s: text = %q, want %q", tool, user, got, want)
	}
}

// toolsInvalid asserts a validation failure: a tool error whose text starts
// "Validation error:" and contains every fragment.
func (h *harness) toolsInvalid(t testing.TB, g group, user, tool string, args map[string]any, fragments ...string) {
	t.Helper()
	text := h.toolsFail(t, g, user, tool, args)
	if !strings.HasPrefix(text, "Validation error: ") {
		t.Errorf("%s %v: text = %q, want a \"Validation error: \" message", tool, args, text)
	}
	for _, f := range fragments {
		if !strings.Contains(text, f) {
			t.Errorf("%s %v: text = %q, want it to mention %q", tool, args, text, f)
		}
	}
}

// toolsSameAsMissing asserts that calling tool as user with args answers
// byte for byte what calling it with missingArgs (naming an object that does
// not exist) answers, in both eras, and returns the message.
func (h *harness) toolsSameAsMissing(t testing.TB, g group, user, tool string, args, missingArgs map[string]any) string {
	t.Helper()
	text := h.toolsFail(t, g, user, tool, args)
	before := toolsState(t, h)
	for _, era := range eras {
		hidden := h.toolsCall(t, g, era, user, tool, args)
		missing := h.toolsCall(t, g, era, user, tool, missingArgs)
		validateResult(t, eraRev(era), "CallToolResult", hidden.Body)
		validateResult(t, eraRev(era), "CallToolResult", missing.Body)
		if !bytes.Equal(hidden.Body, missing.Body) {
			t.Errorf("%s %s: a hidden object reads differently from a missing one:\nhidden  %s\nmissing %s", era, tool, hidden.Body, missing.Body)
		}
	}
	toolsExpectState(t, h, before)
	return text
}

// toolsBlocked asserts that a blocked user is refused with 403 at
// authentication, before any tool runs, and that nothing is written.
func (h *harness) toolsBlocked(t testing.TB, g group, tool string, args map[string]any) {
	t.Helper()
	before := toolsState(t, h)
	for _, era := range eras {
		expect403User(t, h.toolsCall(t, g, era, "dave", tool, args), reasonBlocked)
	}
	toolsExpectState(t, h, before)
}

// toolsWriteTables are the tables a write tool may touch.
var toolsWriteTables = []string{
	"issues", "issue_assignees", "labels", "notes", "merge_requests", "merge_request_assignees",
	"merge_request_reviewers", "internal_ids",
	"ci_pipelines", "ci_jobs", "projects", "users", "approvals", "ci_pipeline_variables", "ci_job_artifacts",
	"ci_job_artifact_chunks", "vulnerabilities", "vulnerability_events", "milestones", "work_item_parent_links", "issue_links",
	"security_scan_profiles", "security_scan_profiles_projects",
}

// toolsState reads what a refused write must leave untouched: the row count
// of every table a write touches, the highest issue and merge request iid,
// the sum of the iid counters, the highest note id, and the full content of
// every row of those tables (so an UPDATE is caught as well as an INSERT or
// DELETE).
func toolsState(t testing.TB, h *harness) map[string]int64 {
	t.Helper()
	st := h.Env.Store
	out := storetest.State(t, st, toolsWriteTables...)
	out["issues max iid"] = storetest.Int(t, st, "SELECT COALESCE(MAX(iid), 0) FROM issues")
	out["merge_requests max iid"] = storetest.Int(t, st, "SELECT COALESCE(MAX(iid), 0) FROM merge_requests")
	out["internal_ids sum"] = storetest.Int(t, st, "SELECT COALESCE(SUM(last_value), 0) FROM internal_ids")
	out["notes max id"] = storetest.Int(t, st, "SELECT COALESCE(MAX(id), 0) FROM notes")
	return out
}

// toolsExpectState fails when the store differs from before.
func toolsExpectState(t testing.TB, h *harness, before map[string]int64) {
	t.Helper()
	after := toolsState(t, h)
	if len(after) != len(before) {
		t.Fatalf("store state has %d entries, was %d", len(after), len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("store changed by a refused call: %s %d → %d", k, v, after[k])
		}
	}
}

// toolsMaxIID returns the highest iid in table (issues, merge_requests)
// of the project with projectID (0 when it has none).
func toolsMaxIID(t testing.TB, h *harness, table string, projectID int64) int64 {
	t.Helper()
	return storetest.Int(t, h.Env.Store, "SELECT COALESCE(MAX(iid), 0) FROM "+table+" WHERE project_id = ?", projectID)
}

// toolsProject returns the stored project at path.
func toolsProject(t testing.TB, h *harness, path string) *models.Project {
	t.Helper()
	p, err := h.Env.Store.Projects.FindProjectByPath(context.Background(), path)
	if err != nil {
		t.Fatalf("find project %s: %v", path, err)
	}
	return p
}

// toolsAddProject creates a public project at group/name (group
// "gitlab-org", "acme", …; it must exist) with an empty repository and the
// members of gitlab-org/gitlab-mcp: root (owner), alice (developer), bob
// (reporter), carol (guest). For specs that build their own history.
func toolsAddProject(t testing.TB, h *harness, group, name string) *models.Project {
	t.Helper()
	ctx := context.Background()
	g, err := h.Env.Store.Groups.FindGroupByFullPath(ctx, group)
	if err != nil {
		t.Fatalf("find group %s: %v", group, err)
	}
	now := time.Now().UTC()
	p := &models.Project{Name: name, Path: name, NamespaceID: g.ID, Visibility: g.Visibility, DefaultBranch: "main",
		CreatedAt: now, UpdatedAt: now}
	if err := h.Env.Store.Projects.CreateProject(ctx, p); err != nil {
		t.Fatalf("create project %s/%s: %v", group, name, err)
	}
	for username, level := range map[string]models.AccessLevel{"root": models.Owner, "alice": models.Developer,
		"bob": models.Reporter, "carol": models.Guest} {
		u, err := h.Env.Store.Users.FindUserByUsername(ctx, username)
		if err != nil {
			t.Fatalf("find user %s: %v", username, err)
		}
		if err := h.Env.Store.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID, AccessLevel: level,
			CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatalf("add %s to %s: %v", username, p.PathWithNamespace, err)
		}
	}
	return p
}

// toolsBranch creates branch name at start (a branch or commit) in the
// repository of project (a path), through the repository interface, and
// returns the commit it points at.
func toolsBranch(t testing.TB, h *harness, project, name, start string) string {
	t.Helper()
	ctx := context.Background()
	repo, err := h.Env.Repositories.Repository(ctx, toolsProject(t, h, project).ID)
	if err != nil {
		t.Fatalf("open repository of %s: %v", project, err)
	}
	defer repo.Close()
	b, err := repo.CreateBranch(ctx, name, start)
	if err != nil {
		t.Fatalf("create branch %s in %s: %v", name, project, err)
	}
	return b.Commit.ID
}

// toolsAddUser creates an active user with an EE seat who is a member of
// nothing, and returns a token for it (scopes api, mcp, mcp_orbit) under
// h.Tokens[username].
func toolsAddUser(t testing.TB, h *harness, username string) *models.User {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	u := &models.User{Username: username, Name: "Spec " + username, Email: username + "@example.com",
		State: models.UserActive, EESeat: true, CreatedAt: now, UpdatedAt: now}
	if err := h.Env.Store.Users.CreateUser(ctx, u); err != nil {
		t.Fatalf("create user %s: %v", username, err)
	}
	raw, _ := authMint(t, h, username, []string{models.ScopeAPI, models.ScopeMCP, models.ScopeMCPOrbit}, authDay(7))
	h.Tokens[username] = raw
	return u
}

// dig walks a decoded JSON document by object keys (string) and array
// indexes (int); it returns nil when the path does not exist.
func toolsDig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// toolsInt returns a decoded JSON number as an int64 (failing otherwise).
func toolsInt(t testing.TB, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a JSON number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("%v is not an integer", n)
	}
	return i
}

// toolsItems returns structuredContent.items.
func toolsItems(t testing.TB, sc map[string]any) []any {
	t.Helper()
	return toolsArray(t, sc["items"])
}

// toolsArray returns v as a JSON array (failing otherwise).
func toolsArray(t testing.TB, v any) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("%v (%T) is not an array", v, v)
	}
	return a
}

// toolsField collects one string field of every item.
func toolsField(items []any, path ...any) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, fmt.Sprint(toolsDig(it, path...)))
	}
	return out
}

// expectField asserts the value at path in doc prints as want.
func toolsExpectField(t testing.TB, doc any, want any, path ...any) {
	t.Helper()
	got := toolsDig(doc, path...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%v = %v, want %v", path, got, want)
	}
}

// overrideArgs returns a copy of base with kv's key/value pairs applied; a
// nil value deletes the key. Validation specs break one argument at a time.
func overrideArgs(base map[string]any, kv ...any) map[string]any {
	m := make(map[string]any, len(base))
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
		} else {
			m[kv[i].(string)] = kv[i+1]
		}
	}
	return m
}
