package gitlab_test

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// A project whose repository directory is gone answers GitLab's
// "404 Repository Not Found", never the storage's own text (which names
// internal ids), from the repository tools, the merge request tools that
// read git, search's git scopes and semantic_search.
func TestRepositoryMissing_answersGitLab404(t *testing.T) {
	w := newWorld(t)
	p := w.project("gitlab-org/orbit")
	if err := w.st.Projects.Repositories().(*repository.Storage).Remove(p.ID); err != nil {
		t.Fatalf("remove the repository: %v", err)
	}
	ee := callOpts{edition: models.EditionEE}
	for _, c := range []struct {
		tool, args string
		opts       []callOpts
	}{
		{"get_repository_file", `{"project_id":"gitlab-org/orbit","file_path":"README.md","ref":"main"}`, nil},
		{"list_repository_tree", `{"project_id":"gitlab-org/orbit"}`, nil},
		{"semantic_search", `{"scope":"code","q":"zebrafish","project_id":"gitlab-org/orbit"}`, []callOpts{ee}},
		{"get_merge_request_diffs", `{"id":"gitlab-org/orbit","merge_request_iid":1}`, nil},
		{"search", `{"scope":"blobs","search":"zebrafish","project_id":"gitlab-org/orbit"}`, nil},
	} {
		msg := w.fails(t, w.Alice, c.tool, c.args, "404 Repository Not Found", c.opts...)
		if strings.Contains(msg, "project ") || strings.Contains(msg, "@hashed") {
			t.Errorf("%s: %q names storage internals", c.tool, msg)
		}
	}
}
