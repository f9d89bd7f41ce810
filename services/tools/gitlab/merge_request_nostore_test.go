package gitlab_test

import (
	"context"
	"encoding/json"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// TestMergeRequestTools_withoutStore: the merge request tools register
// from a catalog built without a store (Deps{}, as tools/list snapshots
// it) and, called there, answer the server failure every tool answers,
// before touching anything their small values hold.
func TestMergeRequestTools_withoutStore(t *testing.T) {
	args := map[string]string{
		"accept_merge_request":        `{"url":"https://gitlab.example.com/a/b/-/merge_requests/1","sha":"abc"}`,
		"get_merge_request":           `{"url":"https://gitlab.example.com/a/b/-/merge_requests/1"}`,
		"get_merge_request_commits":   `{"id":"a/b","merge_request_iid":1}`,
		"get_merge_request_conflicts": `{"project_id":"a/b","merge_request_iid":1}`,
		"get_merge_request_diffs":     `{"id":"a/b","merge_request_iid":1}`,
		"get_merge_request_notes":     `{"url":"https://gitlab.example.com/a/b/-/merge_requests/1"}`,
		"get_merge_request_pipelines": `{"id":"a/b","merge_request_iid":1}`,
		"list_merge_requests":         `{"project_id":"a/b"}`,
		"save_merge_request":          `{"project_id":"a/b","title":"t"}`,
		"save_merge_request_review":   `{"url":"https://gitlab.example.com/a/b/-/merge_requests/1","method":"unapprove"}`,
	}
	id := &models.Identity{User: &models.User{ID: 1, Username: "alice"}, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
	seen := 0
	for _, d := range gitlab.Tools(gitlab.Deps{}) {
		raw, ok := args[d.Name]
		if !ok {
			continue
		}
		seen++
		res, err := d.Run(context.Background(), &tools.Call{Name: d.Name, Identity: id, Arguments: json.RawMessage(raw)})
		if err == nil || err.Error() != "the GitLab data store is not configured" {
			t.Errorf("%s without a store: result %v, error %v; want the server failure \"the GitLab data store is not configured\"", d.Name, res, err)
		}
		if _, caller := tools.ErrorResult(err); caller {
			t.Errorf("%s without a store: %v is a caller error, want a server failure", d.Name, err)
		}
	}
	if seen != len(args) {
		t.Errorf("found %d of the %d merge request tools in the catalog", seen, len(args))
	}
}
