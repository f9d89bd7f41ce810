package gitlab_test

import (
	"context"
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// BenchmarkGetIssue measures get_issue through the tool service (schema
// validation, project resolution, permission checks, three store reads and
// the JSON rendering) on the test store.
func BenchmarkGetIssue(b *testing.B) {
	w := newWorld(b)
	f := w.fixture(b)
	e, ok := w.snap.Lookup("get_issue")
	if !ok {
		b.Fatal("get_issue not in the catalog")
	}
	args := json.RawMessage(`{"id":"gitlab-org/gitlab-mcp","issue_iid":` + itoa(f.Issue.IID) + `}`)
	id := &auth.Identity{User: w.Bob, Method: auth.MethodPAT, Scopes: []string{models.ScopeAPI}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Run(ctx, &tools.Call{Identity: id, Edition: models.EditionCE, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("get_issue: %v %v", err, res)
		}
	}
}
