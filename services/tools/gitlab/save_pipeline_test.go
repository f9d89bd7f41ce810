package gitlab_test

import (
	"strings"
	"testing"
)

// save_pipeline runs a new pipeline on a branch or a tag. It checked the
// ref by resolving "refs/heads/"+ref as a revision, so revision syntax
// passed: "main~1" made a pipeline whose ref is "main~1" on main's parent,
// "main^{tree}" and "main:README.md" one on main. A ref that is not a
// branch or tag name is GitLab's validation error, and nothing is written.
func TestSavePipelineRefMustBeABranchOrTagName(t *testing.T) {
	w := newWorld(t)
	before := w.state(t)
	for _, ref := range []string{"main~1", "main^", "main^{tree}", "main:README.md", "main@{0}",
		"v18.7.0^{}", "main^{/Sort}", "refs/heads/main", "HEAD"} {
		text := w.fails(t, w.Alice, "save_pipeline", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "ref": ref},
			"Validation error: ")
		if !strings.Contains(text, "is not a branch or tag of project gitlab-org/gitlab-mcp") {
			t.Errorf("ref %q: %q", ref, text)
		}
	}
	w.unchanged(t, before)
	for _, ref := range []string{"main", "v18.7.0", "feature/server-discover"} {
		created := w.ok(t, w.Alice, "save_pipeline", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "ref": ref})
		if created["ref"] != ref || len(created["sha"].(string)) != 40 {
			t.Errorf("pipeline on %q = %v", ref, created)
		}
	}
}

// A pipeline variable's key is an environment variable name in GitLab
// (letters, digits and "_"); "a b", "A-B" or "x=y" were stored as given.
func TestSavePipelineVariableKeysAreGitLabNames(t *testing.T) {
	w := newWorld(t)
	before := w.state(t)
	for _, key := range []string{"a b", "A-B", "x=y", "ünï", "$HOME", "K\n"} {
		text := w.fails(t, w.Alice, "save_pipeline", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "ref": "main",
			"variables": []any{map[string]any{"key": key, "value": "v"}}}, "Validation error: ")
		if !strings.Contains(text, "can contain only letters, digits and '_'") {
			t.Errorf("key %q: %q", key, text)
		}
	}
	w.unchanged(t, before)
	w.ok(t, w.Alice, "save_pipeline", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "ref": "main",
		"variables": []any{map[string]any{"key": "DEPLOY_ENV_2", "value": "a b=c"}}})
}
