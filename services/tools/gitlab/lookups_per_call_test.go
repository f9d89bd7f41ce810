package gitlab_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// TestWriteTools_oneProjectLookup counts the store's project lookups in
// one call of each write tool through the tool service with the tool
// rules on (issue #33: create_issue, save_note, save_merge_request,
// save_merge_request_review, save_pipeline and save_work_item looked
// their project up twice, once for the rules and once in the tool): the
// Definition's Target is resolved once and both read it, so each call
// looks its project up once, whichever way its arguments name it.
func TestWriteTools_oneProjectLookup(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	repos, _ := w.st.Projects.Repositories().(gitlab.Repositories)
	svc, err := tools.NewService(w.st.Tools, gitlab.Tools(gitlab.Deps{Store: gitlab.FamiliesOf(w.st), InTx: gitlab.Transactions(w.st),
		PublicURL: publicURL, Version: gitlab.ServerVersion{Version: "18.8.0"}, Repositories: repos}),
		tools.Options{Rules: w.st.Tools, DefaultWriteRule: models.RuleAllow})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	stmts := storetest.CountStatements(t, w.st)
	mcp := w.project("gitlab-org/gitlab-mcp")
	mrURL := publicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/" + itoa(f.MR.IID)
	tests := []struct {
		name, tool, args string
	}{
		{"create_issue", "create_issue", `{"id":"gitlab-org/gitlab-mcp","title":"Counted"}`},
		{"save_note on a work item", "save_note", `{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":` + itoa(f.Issue.IID) + `,"body":"Counted."}`},
		{"save_note on a merge request by url", "save_note", `{"url":"` + mrURL + `","body":"Counted."}`},
		{"save_merge_request update", "save_merge_request", `{"project_id":` + itoa(mcp.ID) + `,"merge_request_iid":` + itoa(f.MR.IID) + `,"description":"Counted."}`},
		{"save_merge_request_review", "save_merge_request_review", `{"project_id":"gitlab-org/gitlab-mcp","merge_request_iid":` + itoa(f.MR.IID) + `,"method":"create_note","body":"Counted."}`},
		{"save_pipeline create", "save_pipeline", `{"project_id":"gitlab-org/gitlab-mcp","ref":"main"}`},
		{"save_work_item create", "save_work_item", `{"project_id":"gitlab-org/gitlab-mcp","title":"Counted","type_name":"Task"}`},
		{"save_work_item update", "save_work_item", `{"project_id":"gitlab-org/gitlab-mcp","work_item_iid":` + itoa(f.Issue.IID) + `,"title":"Counted"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantOneProjectLookup(t, svc, stmts, w.Root, tt.tool, tt.args) })
	}
}

// wantOneProjectLookup calls tool with args as user through svc and
// fails unless the call succeeded with exactly one project lookup among
// the statements stmts counted.
func wantOneProjectLookup(t *testing.T, svc *tools.Service, stmts *storetest.Statements, user *models.User, tool, args string) {
	t.Helper()
	stmts.Reset()
	res, err := svc.Call(stmts.Context(context.Background()), tools.CallRequest{Scope: models.Scope{Edition: models.EditionCE,
		Identity: &models.Identity{User: user, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}},
		Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("server error: %v", err)
	}
	if res.IsError {
		t.Fatalf("isError: %s", res.Text)
	}
	var lookups []string
	for _, q := range stmts.SQL() {
		if projectLookup(q) {
			lookups = append(lookups, q)
		}
	}
	if len(lookups) != 1 {
		t.Errorf("%d project lookups, want 1; the call's statements:\n%s", len(lookups), strings.Join(stmts.SQL(), "\n"))
	}
}

// projectLookup reports whether statement q finds a project by id or path
// (with the caller's role): a SELECT from projects.
func projectLookup(q string) bool {
	q = strings.ToLower(q)
	return strings.HasPrefix(strings.TrimSpace(q), "select") &&
		(strings.Contains(q, `from "projects"`) || strings.Contains(q, "from `projects`") || strings.Contains(q, "from projects "))
}

// TestReadTools_oneProjectLookup counts the project lookups of a read tool
// whose Target is the project or group it reads in: get_work_item_types by
// url looked its project up twice (once to tell a project's URL from a
// group's, once to scope the types) before that lookup became its Target.
// (get_issue's one statement is counted in statements_test.go.)
func TestReadTools_oneProjectLookup(t *testing.T) {
	w := newWorld(t)
	svc, err := tools.NewService(w.st.Tools, gitlab.Tools(gitlab.Deps{Store: gitlab.FamiliesOf(w.st), InTx: gitlab.Transactions(w.st),
		PublicURL: publicURL, Version: gitlab.ServerVersion{Version: "18.8.0"}}), tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	stmts := storetest.CountStatements(t, w.st)
	tests := []struct {
		name, tool, args string
	}{
		{"get_work_item_types by url", "get_work_item_types", `{"url":"` + publicURL + `/gitlab-org/gitlab-mcp"}`},
		{"get_work_item_types by project_id", "get_work_item_types", `{"project_id":"gitlab-org/gitlab-mcp"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantOneProjectLookup(t, svc, stmts, w.Root, tt.tool, tt.args) })
	}
}
