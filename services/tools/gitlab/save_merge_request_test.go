package gitlab_test

import (
	"strings"
	"testing"
)

// GitLab's label names cannot hold a comma (labels travel as a
// comma-separated list: "a,b" is two labels). create_issue and
// create_merge_request refused one, but save_merge_request's labels and
// add_labels arrays created the label "a,b", which no labels filter can
// name afterwards.
func TestSaveMergeRequestRefusesLabelNamesWithAComma(t *testing.T) {
	w := newWorld(t)
	w.ok(t, w.Alice, "add_branch", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "labels-probe", "ref": "main"})
	before := w.state(t)
	mr := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}
	create := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "title": "t", "source_branch": "labels-probe", "target_branch": "main"}
	for _, c := range []struct {
		base map[string]any
		arg  string
	}{{mr, "labels"}, {mr, "add_labels"}, {create, "labels"}} {
		args := map[string]any{c.arg: []any{"ok-label", "a,b"}}
		for k, v := range c.base {
			args[k] = v
		}
		text := w.fails(t, w.Alice, "save_merge_request", args, "Validation error: ")
		if !strings.Contains(text, `"a,b": a label name cannot contain a comma`) {
			t.Errorf("%s: %q", c.arg, text)
		}
	}
	w.unchanged(t, before)
	got := w.ok(t, w.Alice, "save_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1,
		"add_labels": []any{" spaced label "}})
	if labels := get(t, got, "labels").([]any); !strings.Contains(strings.Join(strs(labels), "|"), "spaced label") {
		t.Errorf("labels after add = %v", labels)
	}
}

func strs(in []any) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i], _ = v.(string)
	}
	return out
}

// Retargeting a merge request at its own source branch was refused with
// the store's words: "update merge request !1 of project 1: target branch
// equals the source branch: invalid input" (an internal project id and
// the sentinel's text). It is the same validation error as on create.
func TestSaveMergeRequestTargetEqualToSource(t *testing.T) {
	w := newWorld(t)
	before := w.state(t)
	text := w.fails(t, w.Alice, "save_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1,
		"target_branch": "feature/server-discover", "title": "retitled"}, "Validation error: ")
	if want := `Validation error: source_branch and target_branch must be different (both are "feature/server-discover")`; text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	w.unchanged(t, before)
	if got := w.ok(t, w.Alice, "get_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 1}); got["title"] == "retitled" {
		t.Errorf("the title changed although the update was refused")
	}
}

// Closing or reopening a merged merge request was refused in the store's
// words, "update merge request !2 of project 1: a merged merge request
// cannot be closed: invalid input", an internal id and the sentinel
// included; the tool answers it itself.
func TestSaveMergeRequestStateEventOnAMergedOne(t *testing.T) {
	w := newWorld(t)
	before := w.state(t)
	for event, verb := range map[string]string{"close": "closed", "reopen": "reopened"} {
		text := w.fails(t, w.Alice, "save_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 2,
			"state_event": event, "title": "changed"}, "")
		if want := "Validation error: state_event: merge request !2 is merged, and a merged merge request cannot be " + verb; text != want {
			t.Errorf("%s: %q, want %q", event, text, want)
		}
	}
	w.unchanged(t, before)
	got := w.ok(t, w.Alice, "get_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "merge_request_iid": 2})
	if got["state"] != "merged" || got["title"] == "changed" {
		t.Errorf("merge request !2 changed: state %v, title %v", got["state"], got["title"])
	}
}
