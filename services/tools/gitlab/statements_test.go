package gitlab_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// TestGitLabTools_statementsPerCall pins how many SQL statements the read
// tools run per call (the token lookup, done by the transport, excluded):
// on PostgreSQL each one is a network round trip. The project comes with
// the caller's role in one statement, a merge request in one, and its
// author, assignees and reviewers together in one more; get_issue reads
// all it shows in one statement (FindIssueView). Before these joins
// get_issue ran 7 and get_merge_request 13.
func TestGitLabTools_statementsPerCall(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	stmts := storetest.CountStatements(t, w.st)
	mcp := w.project("gitlab-org/gitlab-mcp")
	issue := `{"id":"gitlab-org/gitlab-mcp","issue_iid":` + itoa(f.Issue.IID) + `}`
	mr := `{"project_id":"gitlab-org/gitlab-mcp","merge_request_iid":` + itoa(f.MR.IID) + `}`
	tests := []struct {
		name, tool, args string
		user             *models.User
		want             int
		isError          bool
	}{
		// project+role, issue with its note counts, author and assignees:
		// one statement (FindIssueView)
		{"get_issue by path", "get_issue", issue, w.Bob, 1, false},
		{"get_issue by id", "get_issue", `{"id":` + itoa(mcp.ID) + `,"issue_iid":` + itoa(f.Issue.IID) + `}`, w.Alice, 1, false},
		{"get_issue of a stranger", "get_issue", issue, w.Stranger, 1, false},
		// the same; then hidden
		{"confidential issue hidden", "get_issue", `{"id":"gitlab-org/gitlab-mcp","issue_iid":` + itoa(f.Secret.IID) + `}`, w.Stranger, 1, true},
		// no view; then project+role, no issue
		{"missing issue", "get_issue", `{"id":"gitlab-org/gitlab-mcp","issue_iid":9999}`, w.Alice, 3, true},
		// the view; the project is not visible
		{"hidden project", "get_issue", `{"id":"acme/secret-plans","issue_iid":1}`, w.Stranger, 1, true},
		// project+role, merge request, author+assignees+reviewers,
		// note count
		{"get_merge_request", "get_merge_request", mr, w.Alice, 4, false},
		// project+role, no merge request
		{"missing merge request", "get_merge_request", `{"project_id":"gitlab-org/gitlab-mcp","merge_request_iid":9999}`, w.Alice, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := w.snap.Lookup(tt.tool)
			if !ok {
				t.Fatalf("%s not in the catalog", tt.tool)
			}
			id := &models.Identity{User: tt.user, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
			stmts.Reset()
			res, err := e.Run(stmts.Context(context.Background()),
				&tools.Call{Identity: id, Edition: models.EditionCE, Arguments: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatalf("%s: server error: %v", tt.tool, err)
			}
			if res.IsError != tt.isError {
				t.Fatalf("%s: isError = %v, want %v: %s", tt.tool, res.IsError, tt.isError, res.Text)
			}
			if got := stmts.SQL(); len(got) != tt.want {
				t.Errorf("%s ran %d statements, want %d:\n%s", tt.tool, len(got), tt.want, strings.Join(got, "\n"))
			}
		})
	}
}
