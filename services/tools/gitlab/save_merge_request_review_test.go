package gitlab_test

import (
	"strings"
	"testing"
)

// A diff note was stored on any line number of a changed file: line 99999
// of a 20-line file, or an old line of a file the merge request adds. The
// note then points at nothing. A line the file does not have on that side
// is a validation error, and nothing is written.
func TestSaveMergeRequestReviewDiffNoteOnALineTheFileHas(t *testing.T) {
	w := newWorld(t)
	before := w.state(t)
	review := func(kv ...any) map[string]any {
		args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}
		for i := 0; i < len(kv); i += 2 {
			args[kv[i].(string)] = kv[i+1]
		}
		return args
	}
	const added = "internal/mcp/discover.go" // new in !1
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{review("method", "create_diff_note", "body", "x", "new_path", added, "new_line", 99999),
			`create_diff_note: "internal/mcp/discover.go" has no line 99999 at the head of merge request !1`},
		{review("method", "create_diff_note", "body", "x", "old_path", added, "new_path", added, "old_line", 1),
			`create_diff_note: "internal/mcp/discover.go" is added by merge request !1, so it has no old_line`},
		{review("method", "submit_review", "comments", []any{
			map[string]any{"file": added, "new_line": 3, "body": "fine"},
			map[string]any{"file": added, "new_line": 100000, "body": "past the end"}}),
			`comments[1]: "internal/mcp/discover.go" has no line 100000 at the head of merge request !1`},
	} {
		text := w.fails(t, w.Alice, "save_merge_request_review", c.args, "Validation error: ")
		if !strings.Contains(text, c.want) {
			t.Errorf("%v: %q, want it to contain %q", c.args, text, c.want)
		}
	}
	w.unchanged(t, before)
	w.ok(t, w.Alice, "save_merge_request_review", review("method", "create_diff_note", "body", "x", "new_path", added, "new_line", 3))
}

// A line longer than the 64 KiB the check reads of it (a minified file)
// is still a line the file has: a note on it was refused as "has no line".
func TestSaveMergeRequestReviewDiffNoteOnALongLine(t *testing.T) {
	w := newWorld(t)
	const file = "web/app.min.js"
	w.ok(t, w.Alice, "add_commit", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "feature/server-discover",
		"commit_message": "Add a minified file", "actions": []any{
			map[string]any{"action": "create", "file_path": file, "content": "// min\n" + strings.Repeat("x", 70_000) + "\n"},
		}})
	args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1,
		"method": "create_diff_note", "body": "long", "new_path": file}
	args["new_line"] = 2
	w.ok(t, w.Alice, "save_merge_request_review", args)
	args["new_line"] = 3
	text := w.fails(t, w.Alice, "save_merge_request_review", args, "Validation error: ")
	if want := `create_diff_note: "web/app.min.js" has no line 3 at the head of merge request !1`; !strings.Contains(text, want) {
		t.Errorf("%q, want it to contain %q", text, want)
	}
}
