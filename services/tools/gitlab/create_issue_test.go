package gitlab_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

func TestCreateIssue(t *testing.T) {
	w := newWorld(t)
	mcp := w.project("gitlab-org/gitlab-mcp")

	t.Run("happy path: issue, new and existing labels, assignee", func(t *testing.T) {
		before := w.state(t)
		iid := w.nextIID(t, "issues", mcp.ID)
		m := w.ok(t, w.Bob, "create_issue", map[string]any{
			"id": "gitlab-org/gitlab-mcp", "title": "  Crash on empty tools/list  ",
			"description": "Steps:\n1. call tools/list", "labels": []string{"bug", "triage", "bug", " "},
			"assignee_ids": []int64{w.Alice.ID, 0, w.Alice.ID}, "confidential": true,
		})
		wantFields(t, "issue", m, map[string]any{
			"iid": iid, "project_id": mcp.ID, "title": "Crash on empty tools/list",
			"description": "Steps:\n1. call tools/list", "state": "opened", "labels": []string{"bug", "triage"},
			"confidential": true, "closed_at": nil, "milestone": nil, "user_notes_count": 0,
			"web_url":    publicURL + "/gitlab-org/gitlab-mcp/-/issues/" + itoa(iid),
			"references": map[string]any{"short": "#" + itoa(iid), "relative": "#" + itoa(iid), "full": "gitlab-org/gitlab-mcp#" + itoa(iid)},
		})
		wantFields(t, "author", get(t, m, "author"), map[string]any{"id": w.Bob.ID, "username": "bob"})
		jsonEq(t, "assignees", field(t, get(t, m, "assignees").([]any), "id"), []int64{w.Alice.ID})
		after := w.state(t)
		for k, d := range map[string]int64{"issues": 1, "labels": 1, "issue_assignees": 1, "sum internal_ids": 1} {
			if after[k]-before[k] != d {
				t.Errorf("%s grew by %d, want %d", k, after[k]-before[k], d)
			}
		}
		labels, err := w.st.Issues.FindLabelsByName(context.Background(), mcp.ID, []string{"triage"})
		if err != nil || len(labels) != 1 || labels[0].Color != "#6699cc" {
			t.Errorf("label triage = %+v, %v; want one, default color", labels, err)
		}
		// The issue reads back the same way.
		back := w.ok(t, w.Alice, "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": iid})
		jsonEq(t, "read back", back, m)
	})

	t.Run("labels as a comma-separated string, numeric id", func(t *testing.T) {
		iid := w.nextIID(t, "issues", mcp.ID)
		m := w.ok(t, w.Alice, "create_issue", map[string]any{"id": mcp.ID, "title": "Two labels", "labels": "feature, documentation"})
		wantFields(t, "issue", m, map[string]any{"iid": iid, "labels": []string{"feature", "documentation"}, "confidential": false, "assignees": []any{}})
	})

	t.Run("admin may create anywhere", func(t *testing.T) {
		iid := w.nextIID(t, "issues", w.project("acme/secret-plans").ID)
		m := w.ok(t, w.Root, "create_issue", `{"id":"acme/secret-plans","title":"Board prep"}`)
		wantFields(t, "issue", m, map[string]any{"iid": iid, "project_id": w.project("acme/secret-plans").ID})
	})

	// GitLab's create_issue is guest_access: a Guest, and any signed-in
	// user on a public or internal project, opens an issue; the labels,
	// assignees and milestone of a caller below Reporter are dropped
	// (set_issue_metadata), confidential is kept.
	for _, c := range []struct {
		name    string
		user    func() *models.User
		project string
	}{
		{"guest of a public project", func() *models.User { return w.Carol }, "gitlab-org/gitlab-mcp"},
		{"non-member of a public project", func() *models.User { return w.Stranger }, "gitlab-org/gitlab-mcp"},
		{"non-member of an internal project", func() *models.User { return w.Carol }, "gitlab-org/orbit"},
	} {
		t.Run("below Reporter: "+c.name, func(t *testing.T) {
			p := w.project(c.project)
			before := w.state(t)
			iid := w.nextIID(t, "issues", p.ID)
			m := w.ok(t, c.user(), "create_issue", map[string]any{"id": c.project, "title": "Report", "description": "d",
				"labels": []string{"outsider-label"}, "assignee_ids": []int64{w.Alice.ID}, "milestone_id": 3, "confidential": true})
			wantFields(t, "issue", m, map[string]any{"iid": iid, "project_id": p.ID, "title": "Report", "labels": []string{},
				"assignees": []any{}, "milestone": nil, "confidential": true})
			wantFields(t, "author", get(t, m, "author"), map[string]any{"id": c.user().ID})
			after := w.state(t)
			for k, d := range map[string]int64{"issues": 1, "labels": 0, "issue_assignees": 0} {
				if after[k]-before[k] != d {
					t.Errorf("%s grew by %d, want %d", k, after[k]-before[k], d)
				}
			}
		})
	}

	failures := []struct {
		name string
		user func() *models.User
		args map[string]any
		opts callOpts
		want string
	}{
		{"non-member of private project", func() *models.User { return w.Bob }, map[string]any{"id": "acme/secret-plans", "title": "x"}, callOpts{},
			"404 Project Not Found"},
		{"blank title", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": " \t "}, callOpts{},
			"Validation error: title: must not be blank"},
		{"title too long", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": strings.Repeat("é", 256)}, callOpts{},
			"Validation error: /title: maxLength: got 256, want 255"},
		{"assignee not a member", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "labels": []string{"new-one"}, "assignee_ids": []int64{w.Stranger.ID}}, callOpts{},
			"Validation error: assignee_ids: user " + itoa(w.Stranger.ID) + " (stranger) is not a member of project gitlab-org/gitlab-mcp"},
		{"blocked assignee", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "assignee_ids": []int64{w.Dave.ID}}, callOpts{},
			"Validation error: assignee_ids: user " + itoa(w.Dave.ID) + " (dave) is blocked and cannot be assigned"},
		{"unknown assignee", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "assignee_ids": []int64{987654}}, callOpts{},
			"Validation error: assignee_ids: user 987654 does not exist"},
		{"milestone", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "milestone_id": 3}, callOpts{},
			"Validation error: milestone_id: milestone 3 not found in project gitlab-org/gitlab-mcp"},
		{"epic", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "epic_id": 8}, callOpts{},
			"Validation error: epic_id: epic 8 not found"},
		{"label with a comma", func() *models.User { return w.Bob }, map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "labels": []string{"a,b"}}, callOpts{},
			`Validation error: labels: "a,b": a label name cannot contain a comma`},
		{"missing project", func() *models.User { return w.Bob }, map[string]any{"id": "nope/nope", "title": "x"}, callOpts{},
			"404 Project Not Found"},
	}
	for _, f := range failures {
		t.Run("fails: "+f.name, func(t *testing.T) {
			before := w.state(t)
			w.fails(t, f.user(), "create_issue", f.args, f.want, f.opts)
			w.unchanged(t, before)
		})
	}
}

// faultyStore fails chosen writes, inside transactions too: wrap puts a
// failing family in place of each of the three.
type faultyStore struct {
	createIssue, createMergeRequest, createNote error
}

func (f *faultyStore) wrap(fs gitlab.Families) gitlab.Families {
	fs.Issues = faultyIssues{fs.Issues, f.createIssue}
	fs.MergeRequests = faultyMergeRequests{fs.MergeRequests, f.createMergeRequest}
	fs.Notes = faultyNotes{fs.Notes, f.createNote}
	return fs
}

type faultyIssues struct {
	gitlab.IssueFamily
	err error
}

func (f faultyIssues) CreateIssue(ctx context.Context, i *models.Issue) error {
	if f.err != nil {
		return f.err
	}
	return f.IssueFamily.CreateIssue(ctx, i)
}

type faultyMergeRequests struct {
	gitlab.MergeRequestFamily
	err error
}

func (f faultyMergeRequests) CreateMergeRequest(ctx context.Context, mr *models.MergeRequest) error {
	if f.err != nil {
		return f.err
	}
	return f.MergeRequestFamily.CreateMergeRequest(ctx, mr)
}

type faultyNotes struct {
	gitlab.NoteFamily
	err error
}

func (f faultyNotes) CreateNote(ctx context.Context, n *models.Note) error {
	if f.err != nil {
		return f.err
	}
	return f.NoteFamily.CreateNote(ctx, n)
}

// TestWriteTools_readOnlyToken: a read_api token may not call a write tool
// (the tool service refuses before the tool runs) and the store is left as
// it was.
func TestWriteTools_readOnlyToken(t *testing.T) {
	w := newWorld(t)
	calls := map[string]map[string]any{
		"create_issue":       {"id": "gitlab-org/gitlab-mcp", "title": "x"},
		"save_merge_request": {"project_id": "gitlab-org/gitlab-mcp", "title": "x", "source_branch": "main", "target_branch": "feature/server-discover"},
		"save_note":          {"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "x"},
	}
	for name, args := range calls {
		t.Run(name, func(t *testing.T) {
			before := w.state(t)
			_, err := w.try(w.Alice, name, args, callOpts{readOnly: true})
			var ro *tools.ReadOnlyError
			if !errors.As(err, &ro) || ro.Tool != name {
				t.Fatalf("error = %v, want a *tools.ReadOnlyError for %s", err, name)
			}
			w.unchanged(t, before)
		})
	}
}
