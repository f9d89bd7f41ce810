package spec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// get_issue and create_issue over HTTP (doc/tools.md, "GitLab 19.5's
// catalog, tool by tool"): GitLab's issue JSON from the demo data, validation failures, not found,
// and call-time permissions, in both eras. Every refused create_issue leaves
// the store as it was.

func TestTools_getIssue(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")

	t.Run("happy path: GitLab's issue JSON", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2})
			toolsExpectField(t, sc, 2, "iid")
			toolsExpectField(t, sc, mcp.ID, "project_id")
			toolsExpectField(t, sc, "Support the 2026-07-28 stateless protocol revision", "title")
			toolsExpectField(t, sc, "opened", "state")
			toolsExpectField(t, sc, "[feature]", "labels")
			toolsExpectField(t, sc, "18.8", "milestone", "title")
			toolsExpectField(t, sc, "root", "author", "username")
			toolsExpectField(t, sc, "alice", "assignees", 0, "username")
			toolsExpectField(t, sc, "alice", "assignee", "username")
			toolsExpectField(t, sc, false, "confidential")
			toolsExpectField(t, sc, 2, "user_notes_count") // two comments; the system note does not count
			toolsExpectField(t, sc, "gitlab-org/gitlab-mcp#2", "references", "full")
			toolsExpectField(t, sc, h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/issues/2", "web_url")
			toolsExpectField(t, sc, "2026-10-07T09:30:00.000Z", "created_at")
			toolsExpectField(t, sc, nil, "closed_at")
		}
		closed := h.toolsRead(t, ce, "bob", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 1})
		toolsExpectField(t, closed, "closed", "state")
		toolsExpectField(t, closed, "2026-10-08T15:00:00.000Z", "closed_at")
	})

	t.Run("project by numeric id, id string, plain and URL-encoded path", func(t *testing.T) {
		want := h.toolsRead(t, ce, "alice", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 3})
		for _, id := range []any{mcp.ID, fmt.Sprint(mcp.ID), "gitlab-org%2Fgitlab-mcp", "GitLab-Org/GitLab-MCP"} {
			got := h.toolsRead(t, ce, "alice", "get_issue", map[string]any{"id": id, "issue_iid": 3})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("id %v: %v\nwant %v", id, got, want)
			}
		}
	})

	t.Run("validation errors", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{"id": "gitlab-org/gitlab-mcp"}, "issue_iid"},
			{map[string]any{"issue_iid": 1}, "'id'"},
			{nil, "missing properties"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 0}, "/issue_iid"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": "two"}, "/issue_iid"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 1.5}, "/issue_iid"},
			{map[string]any{"id": "", "issue_iid": 1}, "/id"},
			{map[string]any{"id": true, "issue_iid": 1}, "/id"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 1, "state": "opened"}, "state"},
			{map[string]any{"id": "%zz", "issue_iid": 1}, "not a valid URL-encoded path"},
		} {
			h.toolsInvalid(t, ce, "alice", "get_issue", c.args, c.frag)
		}
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 99}, "404 Issue Not Found")
		h.toolsFailWith(t, ce, "alice", "get_issue", map[string]any{"id": "gitlab-org/nope", "issue_iid": 1}, "404 Project Not Found")
		h.toolsFailWith(t, ce, "alice", "get_issue", map[string]any{"id": 9999, "issue_iid": 1}, "404 Project Not Found")
	})

	t.Run("permissions", func(t *testing.T) {
		secret := map[string]any{"id": "acme/secret-plans", "issue_iid": 1}
		missing := map[string]any{"id": "acme/nope", "issue_iid": 1}
		// Members and administrators of a private project read it.
		for _, user := range []string{"alice", "root"} {
			sc := h.toolsRead(t, ce, user, "get_issue", secret)
			toolsExpectField(t, sc, "Q3 acquisition shortlist", "title")
		}
		// Non-members (a guest elsewhere, a reporter elsewhere) cannot tell
		// it from a project that does not exist.
		for _, user := range []string{"carol", "bob"} {
			if msg := h.toolsSameAsMissing(t, ce, user, "get_issue", secret, missing); msg != "404 Project Not Found" {
				t.Errorf("%s: %q", user, msg)
			}
			secretByID := map[string]any{"id": toolsProject(t, h, "acme/secret-plans").ID, "issue_iid": 1}
			h.toolsSameAsMissing(t, ce, user, "get_issue", secretByID, map[string]any{"id": 9999, "issue_iid": 1})
		}
		// An internal project is readable by every signed-in user (glmcp
		// has no external users).
		for _, user := range []string{"carol", "bob", "alice"} {
			sc := h.toolsRead(t, ce, user, "get_issue", map[string]any{"id": "gitlab-org/orbit", "issue_iid": 1})
			toolsExpectField(t, sc, "Reachable never returns on cyclic module dependencies", "title")
		}
		// A confidential issue: its author and reporters see it, a guest
		// gets exactly the answer for a missing issue.
		for _, user := range []string{"alice", "bob", "root"} {
			sc := h.toolsRead(t, ce, user, "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 3})
			toolsExpectField(t, sc, true, "confidential")
		}
		h.toolsSameAsMissing(t, ce, "carol", "get_issue",
			map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 3}, map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 99})
		// A blocked user never reaches the tool.
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": 2})
		}
	})
}

func TestTools_createIssue(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	ctx := context.Background()
	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	bob := authUser(t, h, "bob")

	t.Run("happy path: created, returned and stored", func(t *testing.T) {
		for _, era := range eras {
			before := toolsState(t, h)
			nextIID := toolsMaxIID(t, h, "issues", mcp.ID) + 1
			title := "Spec: created over HTTP (" + era + ")"
			sc := h.toolsWrite(t, ce, era, "alice", "create_issue", map[string]any{
				"id": "gitlab-org%2Fgitlab-mcp", "title": "  " + title + "  ", "description": "Made by the **spec**.",
				"labels": "bug, spec-new-label", "assignee_ids": []any{bob.ID, 0}, "confidential": true,
			})
			iid := toolsInt(t, sc["iid"])
			if iid != nextIID {
				t.Errorf("iid = %d, want %d (the next in the project)", iid, nextIID)
			}
			toolsExpectField(t, sc, title, "title")
			toolsExpectField(t, sc, "opened", "state")
			toolsExpectField(t, sc, "[bug spec-new-label]", "labels")
			toolsExpectField(t, sc, "alice", "author", "username")
			if got := toolsField(toolsArray(t, sc["assignees"]), "username"); !slices.Equal(got, []string{"bob"}) {
				t.Errorf("assignees = %v, want [bob]", got)
			}
			toolsExpectField(t, sc, true, "confidential")
			toolsExpectField(t, sc, fmt.Sprintf("%s/gitlab-org/gitlab-mcp/-/issues/%d", h.Cfg.PublicURL, iid), "web_url")

			stored, err := h.Env.Store.Issues.LoadIssue(ctx, mcp.ID, iid)
			if err != nil {
				t.Fatalf("load created issue: %v", err)
			}
			if stored.Title != title || !stored.Confidential || stored.Description != "Made by the **spec**." ||
				!slices.Equal([]string(stored.Labels), []string{"bug", "spec-new-label"}) || len(stored.Assignees) != 1 || stored.Assignees[0].ID != bob.ID {
				t.Errorf("stored issue = %+v", stored)
			}
			after := toolsState(t, h)
			if after["issues rows"] != before["issues rows"]+1 {
				t.Errorf("issues: %d → %d rows, want one more", before["issues rows"], after["issues rows"])
			}
			wantLabels := before["labels rows"]
			if era == eras[0] {
				wantLabels++ // spec-new-label is created once
			}
			if after["labels rows"] != wantLabels {
				t.Errorf("labels: %d → %d rows, want %d", before["labels rows"], after["labels rows"], wantLabels)
			}
			// get_issue reads it back the same.
			got := h.toolsRead(t, ce, "alice", "get_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "issue_iid": iid})
			if fmt.Sprint(got) != fmt.Sprint(sc) {
				t.Errorf("get_issue after create:\n%v\nwant %v", got, sc)
			}
		}
	})

	t.Run("reporters, guests, outsiders of public and internal projects, members of private projects and administrators create", func(t *testing.T) {
		// GitLab's create_issue is guest_access (doc/tools.md, create_issue).
		for _, c := range []struct{ user, project string }{
			{"bob", "gitlab-org/gitlab-mcp"}, {"bob", "gitlab-org/orbit"},
			{"carol", "gitlab-org/gitlab-mcp"}, {"carol", "gitlab-org/orbit"},
			{"alice", "acme/secret-plans"}, {"root", "acme/secret-plans"},
		} {
			sc := h.toolsWrite(t, ce, "modern", c.user, "create_issue", map[string]any{"id": c.project, "title": "By " + c.user})
			toolsExpectField(t, sc, c.user, "author", "username")
			toolsExpectField(t, sc, toolsProject(t, h, c.project).ID, "project_id")
		}
	})

	t.Run("validation errors change nothing", func(t *testing.T) {
		dave := authUser(t, h, "dave")
		carol := authUser(t, h, "carol")
		long := strings.Repeat("x", 256)
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{"id": "gitlab-org/gitlab-mcp"}, "title"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": ""}, "/title"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": long}, "/title"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "   "}, "title: must not be blank"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "assignee_ids": []any{9999}}, "user 9999 does not exist"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "labels": "spec-never-created", "assignee_ids": []any{dave.ID}}, "blocked"},
			{map[string]any{"id": "gitlab-org/orbit", "title": "t", "assignee_ids": []any{carol.ID}}, "not a member"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "assignee_ids": []any{-1}}, "/assignee_ids/0"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "milestone_id": 1}, "milestone_id"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "epic_id": 1}, "epic_id"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "labels": []any{long}}, "/labels"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "confidential": "yes"}, "/confidential"},
			{map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t", "weight": 3}, "weight"},
		} {
			h.toolsInvalid(t, ce, "alice", "create_issue", c.args, c.frag)
		}
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "create_issue", map[string]any{"id": "gitlab-org/nope", "title": "t"}, "404 Project Not Found")
	})

	t.Run("permissions: refusals change nothing", func(t *testing.T) {
		// A non-member of a private project: not found, as if it did not exist.
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "create_issue",
				map[string]any{"id": "acme/secret-plans", "title": "t"}, map[string]any{"id": "acme/nope", "title": "t"})
		}
		// A blocked member: 403 at authentication.
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "create_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "t"})
		}
	})
}
