package gitlab_test

import (
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestGetIssue(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	mcp := w.project("gitlab-org/gitlab-mcp")
	iid := itoa(f.Issue.IID)

	t.Run("happy path: GitLab's issue JSON", func(t *testing.T) {
		m := w.ok(t, w.Carol, "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": f.Issue.IID})
		self := publicURL + "/api/v4/projects/" + itoa(mcp.ID) + "/issues/" + iid
		wantFields(t, "issue", m, map[string]any{
			"id": f.Issue.ID, "iid": f.Issue.IID, "project_id": mcp.ID, "title": "Zebrafish crash in tools/list",
			"description": "The zebrafish client crashes.", "state": "opened",
			"created_at": "2025-03-01T10:00:00.000Z", "updated_at": "2025-03-01T10:05:00.000Z",
			"closed_at": nil, "closed_by": nil, "labels": []string{"bug", "zebrafish"},
			"milestone": map[string]any{"title": "19.0"}, "confidential": false, "type": "ISSUE",
			"issue_type": "issue", "user_notes_count": 6, "upvotes": 0, "downvotes": 0, "due_date": nil,
			"web_url":    publicURL + "/gitlab-org/gitlab-mcp/-/issues/" + iid,
			"references": map[string]any{"short": "#" + iid, "relative": "#" + iid, "full": "gitlab-org/gitlab-mcp#" + iid},
			"_links": map[string]any{"self": self, "notes": self + "/notes", "award_emoji": self + "/award_emoji",
				"project": publicURL + "/api/v4/projects/" + itoa(mcp.ID)},
		})
		wantFields(t, "author", get(t, m, "author"), map[string]any{
			"id": w.Root.ID, "username": "root", "name": "Administrator", "state": "active",
			"locked": false, "avatar_url": nil, "web_url": publicURL + "/root",
		})
		jsonEq(t, "assignees", field(t, get(t, m, "assignees").([]any), "username"), []string{"alice"})
		wantFields(t, "assignee", get(t, m, "assignee"), map[string]any{"id": w.Alice.ID, "username": "alice"})
	})

	t.Run("project by id, plain path, encoded path, any case", func(t *testing.T) {
		for _, id := range []string{itoa(mcp.ID), `"` + itoa(mcp.ID) + `"`, `"gitlab-org/gitlab-mcp"`,
			`"gitlab-org%2Fgitlab-mcp"`, `"GitLab-Org/GitLab-MCP"`, `"/gitlab-org/gitlab-mcp/"`} {
			m := w.ok(t, w.Bob, "get_issue", `{"id":`+id+`,"issue_iid":`+iid+`}`)
			wantFields(t, "issue via "+id, m, map[string]any{"id": f.Issue.ID, "project_id": mcp.ID})
		}
	})

	t.Run("not found", func(t *testing.T) {
		w.fails(t, w.Alice, "get_issue", `{"id":"gitlab-org/gitlab-mcp","issue_iid":9999}`, "404 Issue Not Found")
		w.fails(t, w.Alice, "get_issue", `{"id":"gitlab-org/nope","issue_iid":1}`, "404 Project Not Found")
		w.fails(t, w.Alice, "get_issue", `{"id":999999,"issue_iid":1}`, "404 Project Not Found")
		w.fails(t, w.Alice, "get_issue", `{"id":"gitlab-org%zz","issue_iid":1}`,
			`Validation error: id: "gitlab-org%zz" is not a valid URL-encoded path`)
	})

	// The permission matrix: visibility × membership × confidentiality.
	cases := []struct {
		name  string
		user  func() *models.User
		issue func() *models.Issue
		want  string // "" = readable
	}{
		{"public project, non-member", func() *models.User { return w.Stranger }, func() *models.Issue { return f.Issue }, ""},
		{"confidential, non-member", func() *models.User { return w.Stranger }, func() *models.Issue { return f.Secret }, "404 Issue Not Found"},
		{"confidential, guest", func() *models.User { return w.Carol }, func() *models.Issue { return f.Secret }, "404 Issue Not Found"},
		{"confidential, reporter", func() *models.User { return w.Bob }, func() *models.Issue { return f.Secret }, ""},
		{"confidential, author", func() *models.User { return w.Alice }, func() *models.Issue { return f.Secret }, ""},
		{"confidential, admin non-member", func() *models.User { return w.Root }, func() *models.Issue { return f.Secret }, ""},
		{"internal project, non-member", func() *models.User { return w.Stranger }, func() *models.Issue { return f.Internal }, ""},
		{"internal project, guest elsewhere", func() *models.User { return w.Carol }, func() *models.Issue { return f.Internal }, ""},
		{"private project, non-member", func() *models.User { return w.Stranger }, func() *models.Issue { return f.Private }, "404 Project Not Found"},
		{"private project, member elsewhere", func() *models.User { return w.Bob }, func() *models.Issue { return f.Private }, "404 Project Not Found"},
		{"private project, member", func() *models.User { return w.Alice }, func() *models.Issue { return f.Private }, ""},
		{"private project, admin", func() *models.User { return w.Root }, func() *models.Issue { return f.Private }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := c.issue()
			args := map[string]any{"id": i.ProjectID, "issue_iid": i.IID}
			if c.want != "" {
				if msg := w.fails(t, c.user(), "get_issue", args, c.want); msg != c.want {
					t.Errorf("message %q says more than %q", msg, c.want)
				}
				return
			}
			m := w.ok(t, c.user(), "get_issue", args)
			wantFields(t, "issue", m, map[string]any{"id": i.ID, "title": i.Title, "confidential": i.Confidential})
		})
	}

	t.Run("hidden reads exactly like missing", func(t *testing.T) {
		hidden := w.fails(t, w.Stranger, "get_issue", map[string]any{"id": "acme/secret-plans", "issue_iid": f.Private.IID}, "404")
		missing := w.fails(t, w.Stranger, "get_issue", `{"id":"acme/no-such-project","issue_iid":1}`, "404")
		if hidden != missing {
			t.Errorf("private project reads %q, a missing one %q", hidden, missing)
		}
		hidden = w.fails(t, w.Carol, "get_issue", map[string]any{"id": mcp.ID, "issue_iid": f.Secret.IID}, "404")
		missing = w.fails(t, w.Carol, "get_issue", map[string]any{"id": mcp.ID, "issue_iid": 4242}, "404")
		if hidden != missing {
			t.Errorf("confidential issue reads %q, a missing one %q", hidden, missing)
		}
	})

	t.Run("internal notes count only for reporters", func(t *testing.T) {
		args := map[string]any{"id": mcp.ID, "issue_iid": f.Secret.IID}
		wantFields(t, "reporter view", w.ok(t, w.Bob, "get_issue", args), map[string]any{"user_notes_count": 2})
		// Assigned as a non-member: sees the issue, not its internal note.
		i := &models.Issue{ProjectID: mcp.ID, Title: "Assigned", Confidential: true, AuthorID: w.Root.ID,
			Assignees: []models.User{{ID: w.Stranger.ID}}}
		if err := w.st.Issues.CreateIssue(t.Context(), i); err != nil {
			t.Fatal(err)
		}
		for _, internal := range []bool{false, true} {
			n := &models.Note{NoteableType: models.NoteableIssue, NoteableID: i.ID, ProjectID: mcp.ID,
				AuthorID: w.Root.ID, Body: "note", Internal: internal}
			if err := w.st.Notes.CreateNote(t.Context(), n); err != nil {
				t.Fatal(err)
			}
		}
		m := w.ok(t, w.Stranger, "get_issue", map[string]any{"id": mcp.ID, "issue_iid": i.IID})
		wantFields(t, "assignee view", m, map[string]any{"user_notes_count": 1, "title": "Assigned"})
		w.fails(t, w.Carol, "get_issue", map[string]any{"id": mcp.ID, "issue_iid": i.IID}, "404 Issue Not Found")
	})
}
