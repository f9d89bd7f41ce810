package gitlab_test

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

func TestGetWorkItemNotes(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	mcp := w.project("gitlab-org/gitlab-mcp")
	base := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": f.Issue.IID}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	ids := func(ns ...*models.Note) []int64 {
		out := make([]int64, len(ns))
		for k, n := range ns {
			out[k] = n.ID
		}
		return out
	}

	t.Run("all notes, oldest first, GitLab's note JSON", func(t *testing.T) {
		m := w.ok(t, w.Stranger, "get_workitem_notes", base)
		list := items(t, m)
		jsonEq(t, "ids", field(t, list, "id"), ids(f.Notes...))
		n := f.Notes[2]
		wantFields(t, "thread reply", list[2], map[string]any{
			"id": n.ID, "type": "DiscussionNote", "body": "Thread reply", "created_at": "2025-03-01T10:12:00.000Z",
			"updated_at": "2025-03-01T10:12:00.000Z", "system": false, "noteable_id": f.Issue.ID,
			"noteable_type": "Issue", "noteable_iid": f.Issue.IID, "project_id": mcp.ID, "resolvable": false,
			"confidential": false, "internal": false, "discussion_id": f.ThreadID,
		})
		wantFields(t, "author", get(t, list[2], "author"), map[string]any{"id": w.Bob.ID, "username": "bob"})
		wantFields(t, "comment", list[0], map[string]any{"type": nil, "body": "First zebrafish comment"})
		wantFields(t, "system note", list[4], map[string]any{"system": true, "body": "added ~zebrafish label"})
		pi := m["pageInfo"].(map[string]any)
		wantFields(t, "pageInfo", pi, map[string]any{"hasNextPage": false, "hasPreviousPage": false})
		if pi["startCursor"] == nil || pi["endCursor"] == nil {
			t.Errorf("cursors missing: %v", pi)
		}
	})

	t.Run("forward walk with first/after", func(t *testing.T) {
		var got []any
		var after any
		pages := 0
		for {
			args := with(map[string]any{"first": 3})
			if after != nil {
				args["after"] = after
			}
			m := w.ok(t, w.Alice, "get_workitem_notes", args)
			got = append(got, field(t, items(t, m), "id")...)
			pi := m["pageInfo"].(map[string]any)
			pages++
			if pi["hasPreviousPage"] != (pages > 1) {
				t.Errorf("page %d hasPreviousPage = %v", pages, pi["hasPreviousPage"])
			}
			if pi["hasNextPage"] != true {
				break
			}
			after = pi["endCursor"]
			if pages > 5 {
				t.Fatal("walk does not end")
			}
		}
		if pages != 3 {
			t.Errorf("%d pages of 3 for 7 notes, want 3", pages)
		}
		jsonEq(t, "walked ids", got, ids(f.Notes...))
	})

	t.Run("backward walk with last/before", func(t *testing.T) {
		var pagesIDs [][]any
		var before any
		for range 5 {
			args := with(map[string]any{"last": 3})
			if before != nil {
				args["before"] = before
			}
			m := w.ok(t, w.Alice, "get_workitem_notes", args)
			pagesIDs = append(pagesIDs, field(t, items(t, m), "id"))
			pi := m["pageInfo"].(map[string]any)
			if pi["hasPreviousPage"] != true {
				break
			}
			before = pi["startCursor"]
		}
		n := ids(f.Notes...)
		jsonEq(t, "pages", pagesIDs, [][]int64{n[4:7], n[1:4], n[0:1]})
	})

	t.Run("window between after and before; before alone takes the last notes", func(t *testing.T) {
		first := w.ok(t, w.Alice, "get_workitem_notes", with(map[string]any{"first": 1}))
		last := w.ok(t, w.Alice, "get_workitem_notes", with(map[string]any{"last": 1}))
		after := get(t, first, "pageInfo", "endCursor")
		before := get(t, last, "pageInfo", "startCursor")
		m := w.ok(t, w.Alice, "get_workitem_notes", with(map[string]any{"after": after, "before": before}))
		jsonEq(t, "window", field(t, items(t, m), "id"), ids(f.Notes[1:6]...))
		wantFields(t, "window pageInfo", m["pageInfo"], map[string]any{"hasNextPage": true, "hasPreviousPage": true})
		m = w.ok(t, w.Alice, "get_workitem_notes", with(map[string]any{"before": before}))
		jsonEq(t, "before only", field(t, items(t, m), "id"), ids(f.Notes[0:6]...))
		m = w.ok(t, w.Alice, "get_workitem_notes", with(map[string]any{"after": get(t, last, "pageInfo", "endCursor")}))
		jsonEq(t, "past the end", items(t, m), []any{})
		wantFields(t, "empty pageInfo", m["pageInfo"], map[string]any{"hasNextPage": false, "hasPreviousPage": true,
			"startCursor": nil, "endCursor": nil})
	})

	t.Run("bad cursors and arguments", func(t *testing.T) {
		w.fails(t, w.Alice, "get_workitem_notes", with(map[string]any{"after": "not-a-cursor"}),
			`Validation error: after: "not-a-cursor" is not a cursor of this list (it was made up or altered)`)
		// A cursor of another work item's notes.
		other := w.ok(t, w.Alice, "get_workitem_notes", map[string]any{"project_id": mcp.ID, "work_item_iid": f.Secret.IID})
		msg := w.fails(t, w.Alice, "get_workitem_notes", with(map[string]any{"after": get(t, other, "pageInfo", "endCursor")}),
			"Validation error: after: ")
		if !strings.Contains(msg, "is not a cursor of this list (it was returned for other arguments)") {
			t.Errorf("another work item's cursor: %q", msg)
		}
		w.fails(t, w.Alice, "get_workitem_notes", with(map[string]any{"first": 1, "last": 1}),
			"Validation error: provide first or last, not both")
		w.fails(t, w.Alice, "get_workitem_notes", `{"work_item_iid":1}`,
			"Validation error: provide url, or project_id (or group_id) and work_item_iid")
		w.fails(t, w.Alice, "get_workitem_notes", `{"project_id":"gitlab-org/gitlab-mcp"}`,
			"Validation error: work_item_iid: required when url is missing")
		w.fails(t, w.Alice, "get_workitem_notes", `{"url":"https://gitlab.example.com/gitlab-org/gitlab-mcp/-/work_items/1","project_id":1}`,
			"Validation error: provide either url, or project_id (or group_id) and work_item_iid, not both")
		w.fails(t, w.Alice, "get_workitem_notes", `{"url":"ftp://x/gitlab-org/gitlab-mcp/-/work_items/1"}`,
			`Validation error: url: "ftp://x/gitlab-org/gitlab-mcp/-/work_items/1" is not an http(s) URL`)
		w.fails(t, w.Alice, "get_workitem_notes", `{"url":"https://gitlab.example.com/gitlab-org/gitlab-mcp/-/merge_requests/1"}`,
			"Validation error: url: invalid work item URL format, expected .../-/work_items/<iid>")
	})

	t.Run("by URL", func(t *testing.T) {
		for _, u := range []string{
			publicURL + "/gitlab-org/gitlab-mcp/-/work_items/" + itoa(f.Issue.IID),
			publicURL + "/gitlab-org/gitlab-mcp/-/issues/" + itoa(f.Issue.IID) + "/",
			"http://other.example.com/gitlab-org/gitlab-mcp/-/work_items/" + itoa(f.Issue.IID) + "#note_1",
		} {
			m := w.ok(t, w.Alice, "get_workitem_notes", map[string]any{"url": u, "first": 1})
			jsonEq(t, u, field(t, items(t, m), "id"), ids(f.Notes[0]))
		}
	})

	t.Run("permissions", func(t *testing.T) {
		secret := map[string]any{"project_id": mcp.ID, "work_item_iid": f.Secret.IID}
		bob := items(t, w.ok(t, w.Bob, "get_workitem_notes", secret))
		jsonEq(t, "reporter sees the internal note", field(t, bob, "internal"), []bool{false, true})
		jsonEq(t, "internal note", field(t, bob, "confidential"), []bool{false, true})
		root := items(t, w.ok(t, w.Root, "get_workitem_notes", secret))
		if len(root) != 2 {
			t.Errorf("admin sees %d notes, want 2", len(root))
		}
		// Carol (guest) cannot see the confidential issue; the stranger neither.
		w.fails(t, w.Carol, "get_workitem_notes", secret, "404 Work Item Not Found")
		w.fails(t, w.Stranger, "get_workitem_notes", secret, "404 Work Item Not Found")
		w.fails(t, w.Stranger, "get_workitem_notes", map[string]any{"project_id": "acme/secret-plans", "work_item_iid": f.Private.IID}, "404 Project Not Found")
		w.fails(t, w.Alice, "get_workitem_notes", map[string]any{"project_id": mcp.ID, "work_item_iid": 4242}, "404 Work Item Not Found")
		// Group work items (epics) do not exist here; a hidden group reads as missing.
		w.fails(t, w.Alice, "get_workitem_notes", `{"group_id":"gitlab-org","work_item_iid":1}`, "404 Work Item Not Found")
		w.fails(t, w.Stranger, "get_workitem_notes", `{"group_id":"acme","work_item_iid":1}`, "404 Group Not Found")
		w.fails(t, w.Alice, "get_workitem_notes", `{"url":"https://gitlab.example.com/groups/gitlab-org/-/work_items/1"}`, "404 Work Item Not Found")
		// Guest on a public issue: internal notes of a confidential issue stay hidden from a non-reporter assignee.
		i := &models.Issue{ProjectID: mcp.ID, Title: "Assigned", Confidential: true, AuthorID: w.Root.ID,
			Assignees: []models.User{{ID: w.Carol.ID}}}
		if err := w.st.Issues.CreateIssue(t.Context(), i); err != nil {
			t.Fatal(err)
		}
		for _, internal := range []bool{true, false} {
			if err := w.st.Notes.CreateNote(t.Context(), &models.Note{NoteableType: models.NoteableIssue, NoteableID: i.ID,
				ProjectID: mcp.ID, AuthorID: w.Root.ID, Body: "n", Internal: internal}); err != nil {
				t.Fatal(err)
			}
		}
		carol := w.ok(t, w.Carol, "get_workitem_notes", map[string]any{"project_id": mcp.ID, "work_item_iid": i.IID})
		jsonEq(t, "guest assignee sees public notes only", field(t, items(t, carol), "internal"), []bool{false})
		wantFields(t, "guest pageInfo", carol["pageInfo"], map[string]any{"hasNextPage": false, "hasPreviousPage": false})
	})
}

// TestCreateWorkItemNote: create_workitem_note is an alias of save_note
// (GitLab 19.5's): the 18.x tool's arguments still work, and the answer,
// the texts and what is stored are save_note's.
func TestCreateWorkItemNote(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	mcp := w.project("gitlab-org/gitlab-mcp")
	lastNote := func(t *testing.T) *models.Note {
		t.Helper()
		id := storetest.Int(t, w.st, "SELECT MAX(id) FROM notes")
		n, err := w.st.Notes.LoadNote(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("new thread: save_note's answer, stored", func(t *testing.T) {
		before := w.state(t)
		m := w.ok(t, w.Bob, "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp",
			"work_item_iid": f.Issue.IID, "body": "Reproduced with zebrafish 2.0 at a/b/c"})
		n := lastNote(t)
		wantFields(t, "payload", m, map[string]any{"errors": []string{}})
		wantFields(t, "note", get(t, m, "note"), map[string]any{
			"id": "gid://gitlab/Note/" + itoa(n.ID), "body": "Reproduced with zebrafish 2.0 at a/b/c", "internal": false,
			"url":        publicURL + "/gitlab-org/gitlab-mcp/-/work_items/" + itoa(f.Issue.IID) + "#note_" + itoa(n.ID),
			"author":     map[string]any{"id": "gid://gitlab/User/" + itoa(w.Bob.ID), "name": w.Bob.Name, "username": "bob"},
			"discussion": map[string]any{"id": "gid://gitlab/Discussion/" + n.DiscussionID},
		})
		if n.NoteableType != models.NoteableIssue || n.NoteableID != f.Issue.ID || n.AuthorID != w.Bob.ID || len(n.DiscussionID) != 40 {
			t.Errorf("stored note = %+v, want bob's on issue %d in a new thread", n, f.Issue.ID)
		}
		if after := w.state(t); after["notes"] != before["notes"]+1 {
			t.Errorf("notes: %d → %d, want one more", before["notes"], after["notes"])
		}
	})

	t.Run("replies by URL with a gid discussion id, and with the bare id", func(t *testing.T) {
		for _, d := range []string{"gid://gitlab/Discussion/" + f.ThreadID, f.ThreadID} {
			m := w.ok(t, w.Alice, "create_workitem_note", map[string]any{
				"url":           publicURL + "/gitlab-org/gitlab-mcp/-/work_items/" + itoa(f.Issue.IID),
				"discussion_id": d, "body": "Fixed in !1"})
			wantFields(t, "reply", get(t, m, "note"), map[string]any{"internal": false,
				"discussion": map[string]any{"id": "gid://gitlab/Discussion/" + f.ThreadID}})
			if n := lastNote(t); n.DiscussionID != f.ThreadID || n.NoteableID != f.Issue.ID {
				t.Errorf("discussion_id %q: stored reply = %+v, want it in thread %s", d, n, f.ThreadID)
			}
		}
	})

	t.Run("internal note; replies to an internal thread are internal", func(t *testing.T) {
		m := w.ok(t, w.Bob, "create_workitem_note", map[string]any{"project_id": mcp.ID, "work_item_iid": f.Secret.IID,
			"body": "internal only", "internal": true})
		wantFields(t, "internal note", get(t, m, "note"), map[string]any{"internal": true})
		m = w.ok(t, w.Alice, "create_workitem_note", map[string]any{"project_id": mcp.ID, "work_item_iid": f.Secret.IID,
			"body": "reply", "discussion_id": f.InternalThreadID})
		wantFields(t, "reply", get(t, m, "note"), map[string]any{"internal": true,
			"discussion": map[string]any{"id": "gid://gitlab/Discussion/" + f.InternalThreadID}})
		if n := lastNote(t); !n.Internal || n.DiscussionID != f.InternalThreadID {
			t.Errorf("stored reply = %+v, want internal in thread %s", n, f.InternalThreadID)
		}
	})

	t.Run("a Guest and a signed-in non-member comment on a public project, as GitLab lets them", func(t *testing.T) {
		for _, u := range []*models.User{w.Carol, w.Stranger} {
			before := w.state(t)
			m := w.ok(t, u, "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp",
				"work_item_iid": f.Issue.IID, "body": "From " + u.Username})
			wantFields(t, "note", get(t, m, "note"), map[string]any{"body": "From " + u.Username})
			if n := lastNote(t); n.AuthorID != u.ID || n.NoteableID != f.Issue.ID {
				t.Errorf("stored note = %+v, want %s's on issue %d", n, u.Username, f.Issue.ID)
			}
			if after := w.state(t); after["notes"] != before["notes"]+1 {
				t.Errorf("%s: notes %d → %d, want one more", u.Username, before["notes"], after["notes"])
			}
		}
	})

	t.Run("admin comments anywhere", func(t *testing.T) {
		m := w.ok(t, w.Root, "create_workitem_note", map[string]any{"project_id": "acme/secret-plans",
			"work_item_iid": f.Private.IID, "body": "Seen."})
		wantFields(t, "note", get(t, m, "note"), map[string]any{"body": "Seen."})
		if n := lastNote(t); n.NoteableID != f.Private.ID {
			t.Errorf("stored note = %+v, want it on issue %d", n, f.Private.ID)
		}
	})

	issue := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": f.Issue.IID, "body": "hi"}
	secret := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": f.Secret.IID, "body": "hi"}
	failures := []struct {
		name  string
		user  func() *models.User
		base  map[string]any
		extra map[string]any
		opts  callOpts
		want  string
	}{
		{"non-member, confidential issue", func() *models.User { return w.Stranger }, secret, nil, callOpts{},
			"Work item #" + itoa(f.Secret.IID) + " not found or inaccessible"},
		{"guest, confidential issue", func() *models.User { return w.Carol }, secret, nil, callOpts{},
			"Work item #" + itoa(f.Secret.IID) + " not found or inaccessible"},
		{"private project", func() *models.User { return w.Bob }, map[string]any{"project_id": "acme/secret-plans",
			"work_item_iid": 1, "body": "hi"}, nil, callOpts{}, "Project not found or inaccessible"},
		{"quick action", func() *models.User { return w.Bob }, issue, map[string]any{"body": "Done.\n/close"}, callOpts{},
			"Validation error: Quick actions (commands starting with /) are not allowed in note body"},
		{"indented quick action", func() *models.User { return w.Bob }, issue, map[string]any{"body": "  /assign @bob"}, callOpts{},
			"Validation error: Quick actions"},
		{"blank body", func() *models.User { return w.Bob }, issue, map[string]any{"body": " \n\t"}, callOpts{},
			"Validation error: body: must not be blank"},
		{"unknown discussion", func() *models.User { return w.Bob }, issue, map[string]any{"discussion_id": "gid://gitlab/Discussion/ffff"}, callOpts{},
			"404 Discussion Not Found"},
		{"discussion of another work item", func() *models.User { return w.Bob }, secret, map[string]any{"discussion_id": f.ThreadID}, callOpts{},
			"404 Discussion Not Found"},
		{"internal reply to a public thread", func() *models.User { return w.Bob }, issue, map[string]any{"discussion_id": f.ThreadID, "internal": true}, callOpts{},
			"Validation error: internal: a reply to a public thread cannot be internal"},
		{"missing work item", func() *models.User { return w.Bob }, issue, map[string]any{"work_item_iid": 4242}, callOpts{},
			"Work item #4242 not found or inaccessible"},
		{"group work item", func() *models.User { return w.Bob }, map[string]any{"group_id": "gitlab-org", "work_item_iid": 1, "body": "hi"}, nil, callOpts{},
			"Work item #1 not found or inaccessible"},
		{"no target", func() *models.User { return w.Bob }, map[string]any{"body": "hi"}, nil, callOpts{},
			"Validation error: Provide url, or merge_request_iid with project_id, or work_item_iid with project_id or group_id"},
	}
	for _, c := range failures {
		t.Run("fails: "+c.name, func(t *testing.T) {
			args := map[string]any{}
			for k, v := range c.base {
				args[k] = v
			}
			for k, v := range c.extra {
				args[k] = v
			}
			before := w.state(t)
			w.fails(t, c.user(), "create_workitem_note", args, c.want, c.opts)
			w.unchanged(t, before)
		})
	}
}
