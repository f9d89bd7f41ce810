package spec

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// The work item note tools over HTTP: get_workitem_notes (alias
// get_work_item_notes) and create_workitem_note (an alias of save_note).

func TestTools_getWorkItemNotes(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	issue1 := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1}

	t.Run("happy path: every note, oldest first", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_workitem_notes", issue1)
			items := toolsItems(t, sc)
			if got := toolsField(items, "author", "username"); !slices.Equal(got, []string{"bob", "alice", "bob", "alice", "alice", "alice"}) {
				t.Errorf("note authors = %v", got)
			}
			if got := toolsField(items, "system"); !slices.Equal(got, []string{"false", "false", "false", "false", "true", "true"}) {
				t.Errorf("system flags = %v", got)
			}
			toolsExpectField(t, sc, "Reproduced on 18.6.1 with two clients; `get_issue` moved from position 1 to 3.", "items", 0, "body")
			toolsExpectField(t, sc, "DiscussionNote", "items", 1, "type")
			if d1, d3 := toolsDig(items, 1, "discussion_id"), toolsDig(items, 3, "discussion_id"); d1 != d3 || d1 == nil {
				t.Errorf("the thread's notes have discussion ids %v and %v, want one", d1, d3)
			}
			toolsExpectField(t, sc, "Issue", "items", 0, "noteable_type")
			toolsExpectField(t, sc, 1, "items", 0, "noteable_iid")
			toolsExpectField(t, sc, false, "pageInfo", "hasNextPage")
		}
	})

	t.Run("by URL, by alias, a page at a time", func(t *testing.T) {
		all := h.toolsRead(t, ce, "bob", "get_workitem_notes", issue1)
		for _, u := range []string{"/gitlab-org/gitlab-mcp/-/work_items/1", "/gitlab-org/gitlab-mcp/-/issues/1"} {
			got := h.toolsRead(t, ce, "bob", "get_workitem_notes", map[string]any{"url": h.Cfg.PublicURL + u})
			if fmt.Sprint(got) != fmt.Sprint(all) {
				t.Errorf("by URL %s: %v\nwant %v", u, got, all)
			}
		}
		if got := h.toolsRead(t, ce, "bob", "get_work_item_notes", issue1); fmt.Sprint(got) != fmt.Sprint(all) {
			t.Errorf("alias get_work_item_notes answers %v\nwant %v", got, all)
		}
		var walked []string
		args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "first": 4}
		for pages := 0; ; pages++ {
			if pages > 3 {
				t.Fatal("more pages than notes")
			}
			sc := h.toolsRead(t, ce, "bob", "get_workitem_notes", args)
			walked = append(walked, toolsField(toolsItems(t, sc), "id")...)
			if toolsDig(sc, "pageInfo", "hasNextPage") != true {
				break
			}
			args["after"] = toolsDig(sc, "pageInfo", "endCursor")
		}
		if want := toolsField(toolsItems(t, all), "id"); !slices.Equal(walked, want) {
			t.Errorf("paged walk = %v, want %v", walked, want)
		}
	})

	t.Run("validation errors", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{}, "provide url, or project_id (or group_id) and work_item_iid"},
			{map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/work_items/1", "project_id": "gitlab-org/gitlab-mcp"}, "not both"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "group_id": "gitlab-org", "work_item_iid": 1}, "project_id or group_id, not both"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp"}, "work_item_iid: required"},
			{map[string]any{"url": "ftp://example.com/gitlab-org/gitlab-mcp/-/work_items/1"}, "not an http(s) URL"},
			{map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/1"}, "invalid work item URL"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "first": 1, "last": 1}, "first or last, not both"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "after": "not-a-cursor"}, "after:"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "first": 101}, "/first"},
			{map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 0}, "/work_item_iid"},
		} {
			h.toolsInvalid(t, ce, "alice", "get_workitem_notes", c.args, c.frag)
		}
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 99}, "404 Work Item Not Found")
		h.toolsFailWith(t, ce, "alice", "get_workitem_notes", map[string]any{"project_id": "gitlab-org/nope", "work_item_iid": 1}, "404 Project Not Found")
		// glmcp has no group-level work items.
		h.toolsFailWith(t, ce, "alice", "get_workitem_notes", map[string]any{"group_id": "gitlab-org", "work_item_iid": 1}, "404 Work Item Not Found")
		h.toolsFailWith(t, ce, "alice", "get_workitem_notes", map[string]any{"group_id": "nope", "work_item_iid": 1}, "404 Group Not Found")
	})

	t.Run("permissions", func(t *testing.T) {
		secret := map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1}
		for _, user := range []string{"alice", "root"} {
			sc := h.toolsRead(t, ce, user, "get_workitem_notes", secret)
			toolsExpectField(t, sc, "Hooli's term sheet arrives next week; Globex prefers a share deal.", "items", 0, "body")
		}
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "get_workitem_notes", secret, map[string]any{"project_id": "acme/nope", "work_item_iid": 1})
			h.toolsSameAsMissing(t, ce, user, "get_workitem_notes",
				map[string]any{"url": h.Cfg.PublicURL + "/acme/secret-plans/-/work_items/1"}, map[string]any{"url": h.Cfg.PublicURL + "/acme/nope/-/work_items/1"})
			h.toolsSameAsMissing(t, ce, user, "get_workitem_notes",
				map[string]any{"group_id": "acme", "work_item_iid": 1}, map[string]any{"group_id": "nope", "work_item_iid": 1})
		}
		sc := h.toolsRead(t, ce, "carol", "get_workitem_notes", map[string]any{"project_id": "gitlab-org/orbit", "work_item_iid": 1})
		toolsExpectField(t, sc, "Confirmed with a three-node cycle in a unit test. Fix in !1.", "items", 0, "body")
		// The confidential issue with an internal note: reporters and up see
		// both notes; a guest cannot tell the issue exists.
		for _, user := range []string{"alice", "bob", "root"} {
			sc := h.toolsRead(t, ce, user, "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3})
			if got := toolsField(toolsItems(t, sc), "internal"); !slices.Equal(got, []string{"false", "true"}) {
				t.Errorf("%s: internal flags = %v", user, got)
			}
		}
		h.toolsSameAsMissing(t, ce, "carol", "get_workitem_notes",
			map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3}, map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 99})
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "get_workitem_notes", issue1)
		}
	})
}

// TestTools_createWorkItemNote: create_workitem_note is an alias of
// save_note, as GitLab 19.5's call-tool spec calls it: the 18.x arguments
// {project_id, work_item_iid, body} work, and the answer is save_note's
// (structuredContent.note).
func TestTools_createWorkItemNote(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	ctx := context.Background()
	notes := h.toolsRead(t, ce, "alice", "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1})
	thread, _ := toolsDig(notes, "items", 1, "discussion_id").(string) // "order-root-cause" on #1
	notes2 := h.toolsRead(t, ce, "alice", "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 2})
	otherThread, _ := toolsDig(notes2, "items", 0, "discussion_id").(string) // a thread of #2
	if thread == "" || otherThread == "" || thread == otherThread {
		t.Fatalf("discussion ids %q and %q", thread, otherThread)
	}

	t.Run("happy path: new thread, replies, internal note", func(t *testing.T) {
		for _, era := range eras {
			before := toolsState(t, h)
			sc := h.toolsWrite(t, ce, era, "bob", "create_workitem_note", map[string]any{
				"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "Spec comment (" + era + ")"})
			id := before["notes max id"] + 1
			toolsExpectField(t, sc, fmt.Sprintf("gid://gitlab/Note/%d", id), "note", "id")
			toolsExpectField(t, sc, "Spec comment ("+era+")", "note", "body")
			toolsExpectField(t, sc, "bob", "note", "author", "username")
			toolsExpectField(t, sc, false, "note", "internal")
			toolsExpectField(t, sc, fmt.Sprintf("%s/gitlab-org/gitlab-mcp/-/work_items/1#note_%d", h.Cfg.PublicURL, id), "note", "url")
			toolsExpectField(t, sc, "[]", "errors")
			stored, err := h.Env.Store.Notes.LoadNote(ctx, id)
			if err != nil || stored.Body != "Spec comment ("+era+")" || stored.AuthorID != authUser(t, h, "bob").ID {
				t.Errorf("stored note = %+v, %v", stored, err)
			}

			// A reply: the discussion's global id, or its bare id.
			for _, d := range []string{"gid://gitlab/Discussion/" + thread, thread} {
				reply := h.toolsWrite(t, ce, era, "alice", "create_workitem_note", map[string]any{
					"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/work_items/1", "body": "Spec reply",
					"discussion_id": d})
				toolsExpectField(t, reply, "gid://gitlab/Discussion/"+thread, "note", "discussion", "id")
			}

			internal := h.toolsWrite(t, ce, era, "alice", "create_workitem_note", map[string]any{
				"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 2, "body": "Spec internal", "internal": true})
			toolsExpectField(t, internal, true, "note", "internal")
			if after := toolsState(t, h); after["notes rows"] != before["notes rows"]+4 {
				t.Errorf("notes: %d → %d rows, want 4 more", before["notes rows"], after["notes rows"])
			}
		}
		// Administrators comment anywhere.
		sc := h.toolsWrite(t, ce, "modern", "root", "create_workitem_note", map[string]any{
			"project_id": "acme/secret-plans", "work_item_iid": 1, "body": "Admin note"})
		toolsExpectField(t, sc, "root", "note", "author", "username")
	})

	t.Run("validation errors change nothing", func(t *testing.T) {
		on1 := func(kv ...any) map[string]any {
			return overrideArgs(map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "b"}, kv...)
		}
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{on1("body", nil), "body"},
			{on1("body", ""), "/body"},
			{on1("body", "  \n "), "body: must not be blank"},
			{on1("body", "Done.\n/close"), "Quick actions (commands starting with /) are not allowed in note body"},
			{on1("discussion_id", thread, "internal", true), "internal: a reply to a public thread cannot be internal"},
			{on1("merge_request_iid", 1), "Provide only one of merge_request_iid or work_item_iid"},
			{on1("project_id", nil, "work_item_iid", nil), "Provide url, or merge_request_iid with project_id, or work_item_iid with project_id or group_id"},
			{on1("project_id", nil), "Provide project_id or group_id with work_item_iid"},
			{on1("internal", "yes"), "/internal"},
			{on1("confidential", true), "confidential"},
		} {
			h.toolsInvalid(t, ce, "alice", "create_workitem_note", c.args, c.frag)
		}
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 99, "body": "b"}, "Work item #99 not found or inaccessible")
		h.toolsFailWith(t, ce, "alice", "create_workitem_note", map[string]any{"project_id": "gitlab-org/nope", "work_item_iid": 1, "body": "b"}, "Project not found or inaccessible")
		h.toolsFailWith(t, ce, "alice", "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "b", "discussion_id": "nope"}, "404 Discussion Not Found")
		// A thread of another issue is not a thread of this one.
		h.toolsFailWith(t, ce, "alice", "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "b", "discussion_id": otherThread}, "404 Discussion Not Found")
	})

	t.Run("permissions: refusals change nothing", func(t *testing.T) {
		// GitLab's create_note: a Guest of the public project, and a
		// signed-in non-member of the internal one, comment.
		for _, p := range []string{"gitlab-org/gitlab-mcp", "gitlab-org/orbit"} {
			sc := h.toolsWrite(t, ce, "legacy", "carol", "create_workitem_note", map[string]any{"project_id": p, "work_item_iid": 1, "body": "b"})
			toolsExpectField(t, sc, "carol", "note", "author", "username")
		}
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "create_workitem_note",
				map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1, "body": "b"},
				map[string]any{"project_id": "acme/nope", "work_item_iid": 1, "body": "b"})
		}
		// The confidential issue is hidden from the guest: not found (the
		// words of a missing one), not forbidden.
		h.toolsFailWith(t, ce, "carol", "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 3, "body": "b"},
			"Work item #3 not found or inaccessible")
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "b"})
		}
	})
}
