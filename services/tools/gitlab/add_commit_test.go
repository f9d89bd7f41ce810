package gitlab_test

import (
	"strings"
	"testing"
)

// A start branch or start_sha that does not exist reached the caller as
// the repository's text with its "not found" cut off: `Start branch
// "nosuch"` and `Object 0000…`, which say nothing. The answer says what is
// missing, and nothing is written.
func TestAddCommitMissingStartSaysNotFound(t *testing.T) {
	w := newWorld(t)
	before := w.state(t)
	action := []any{map[string]any{"action": "create", "file_path": "new.txt", "content": "x"}}
	for _, c := range []struct {
		start map[string]any
		want  string
	}{
		{map[string]any{"start_branch": "no-such-branch"}, `Start branch "no-such-branch": not found`},
		{map[string]any{"start_sha": strings.Repeat("0", 40)}, "Object " + strings.Repeat("0", 40) + ": not found"},
	} {
		args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "probe-new", "commit_message": "m", "actions": action}
		for k, v := range c.start {
			args[k] = v
		}
		if text := w.fails(t, w.Alice, "add_commit", args, ""); text != c.want {
			t.Errorf("add_commit from %v = %q, want %q", c.start, text, c.want)
		}
	}
	w.unchanged(t, before)
	w.fails(t, w.Alice, "get_commit", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "commit_sha": "probe-new"}, "")
}

// A file path through an existing file ("README.md/x") was refused with
// `"README.md" is a file, so it cannot hold "README.md"`: the second name
// was the directory part again, not the path asked for.
func TestAddCommitPathThroughAFileNamesBoth(t *testing.T) {
	w := newWorld(t)
	for path, file := range map[string]string{"README.md/x": "README.md", "cmd/gitlab-mcp/main.go/deeper/y": "cmd/gitlab-mcp/main.go"} {
		text := w.fails(t, w.Alice, "add_commit", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "probe-file",
			"start_branch": "main", "commit_message": "m",
			"actions": []any{map[string]any{"action": "create", "file_path": path, "content": "x"}}}, "Validation error: ")
		want := `action 1 (create): "` + file + `" is a file, so it cannot hold "` + path + `"`
		if !strings.Contains(text, want) {
			t.Errorf("create %s: %q, want it to contain %q", path, text, want)
		}
	}
}
