package spec

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// list_work_items (GitLab 19.5, work_items toolset): the work items a member
// may read, filtered and paged with signed first/after cursors; a project
// the caller may not read answers exactly as a missing one.
func TestTools_listWorkItems(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		// Two tasks under gitlab-mcp#2 in the demo world.
		sc := h.toolsRead(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "types": []any{"TASK"}})
		items := toolsArray(t, sc["work_items"])
		if len(items) != 2 || toolsDig(items[0], "workItemType", "name") != "Task" || toolsDig(sc, "pageInfo", "hasNextPage") != false {
			t.Errorf("%s: tasks = %v", g.Name, sc)
		}
		// Paging: one at a time through every work item of the project.
		all := toolsArray(t, h.toolsRead(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 100})["work_items"])
		var seen []string
		args := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 2, "sort": "TITLE_ASC"}
		for range 50 {
			page := h.toolsRead(t, g, "alice", "list_work_items", args)
			seen = append(seen, toolsField(toolsArray(t, page["work_items"]), "id")...)
			if toolsDig(page, "pageInfo", "hasNextPage") != true {
				break
			}
			args = overrideArgs(args, "after", toolsDig(page, "pageInfo", "endCursor"))
		}
		if len(seen) != len(all) || len(all) < 7 {
			t.Errorf("%s: paged %d of %d work items", g.Name, len(seen), len(all))
		}
		// The confidential issue: listed to its members, not to a guest.
		conf := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "search": "debug log"}
		if n := len(toolsArray(t, h.toolsRead(t, g, "alice", "list_work_items", conf)["work_items"])); n != 1 {
			t.Errorf("%s: alice sees %d confidential items", g.Name, n)
		}
		if g.Name == "CE" { // carol has no EE seat
			if n := len(toolsArray(t, h.toolsRead(t, g, "carol", "list_work_items", conf)["work_items"])); n != 0 {
				t.Errorf("%s: carol (guest) sees %d confidential items", g.Name, n)
			}
		}
		// A private project reads like a missing one (bob has no EE seat:
		// CE only, the tool is the same on both groups).
		if g.Name == "CE" {
			h.toolsSameAsMissing(t, g, "bob", "list_work_items", map[string]any{"project_id": "acme/secret-plans"},
				map[string]any{"project_id": "acme/no-such-project"})
			h.toolsSameAsMissing(t, g, "bob", "list_work_items", map[string]any{"group_id": "acme"},
				map[string]any{"group_id": "no-such-group"})
		}
		// Bad arguments.
		h.toolsInvalid(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "state": "bogus"}, "state")
		h.toolsInvalid(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "first": 0}, "first")
		h.toolsInvalid(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "after": "forged.cursor"}, "after")
		h.toolsInvalid(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "group_id": "gitlab-org"}, "exactly one")
		h.toolsInvalid(t, g, "alice", "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "health_status": "onTrack"}, "health_status")
		h.toolsBlocked(t, g, "list_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
	}
}

// get_work_item_types: the types of the route's edition with their widgets;
// a hidden namespace reads as a missing one.
func TestTools_getWorkItemTypes(t *testing.T) {
	h := startServer(t, withEE())
	want := map[string]string{
		"CE": "Issue Incident Task Ticket",
		"EE": "Issue Incident Test Case Requirement Task Objective Key Result Ticket",
	}
	for _, g := range h.groups() {
		for _, args := range []map[string]any{
			{"project_id": "gitlab-org/gitlab-mcp"}, {"group_id": "gitlab-org"},
			{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp"}, {"url": h.Cfg.PublicURL + "/groups/gitlab-org"},
		} {
			sc := h.toolsRead(t, g, "alice", "get_work_item_types", args)
			types := toolsArray(t, sc["workItemTypes"])
			if got := strings.Join(toolsField(types, "name"), " "); got != want[g.Name] {
				t.Errorf("%s %v: types %q, want %q", g.Name, args, got, want[g.Name])
			}
			toolsExpectField(t, types[0], "gid://gitlab/WorkItems::Type/1", "id")
			toolsExpectField(t, types[0], "work-item-issue", "iconName")
			if got := strings.Join(toolsField(toolsArray(t, toolsDig(types[0], "widgetDefinitions")), "type"), " "); got !=
				"ASSIGNEES DESCRIPTION DEVELOPMENT HIERARCHY LABELS LINKED_ITEMS MILESTONE NOTES START_AND_DUE_DATE" {
				t.Errorf("%s: Issue widgets %s", g.Name, got)
			}
		}
	}
	ce := h.groups()[0]
	h.toolsSameAsMissing(t, ce, "bob", "get_work_item_types", map[string]any{"project_id": "acme/secret-plans"},
		map[string]any{"project_id": "acme/no-such-project"})
	h.toolsSameAsMissing(t, ce, "bob", "get_work_item_types", map[string]any{"group_id": "acme"},
		map[string]any{"group_id": "no-such-group"})
	h.toolsInvalid(t, ce, "alice", "get_work_item_types", map[string]any{}, "exactly one")
	h.toolsInvalid(t, ce, "alice", "get_work_item_types", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "group_id": "gitlab-org"}, "exactly one")
	h.toolsInvalid(t, ce, "alice", "get_work_item_types", map[string]any{"project_id": []any{"x"}}, "project_id")
	h.toolsBlocked(t, ce, "get_work_item_types", map[string]any{"project_id": "gitlab-org/gitlab-mcp"})
}

// list_wiki_pages (wikis toolset, opt-in): a project's pages in slug order,
// paged with signed cursors bound to the wiki; group wikis answer as on
// GitLab CE.
func TestTools_listWikiPages(t *testing.T) {
	h := startServer(t, withEE())
	mcp := map[string]any{"project_id": "gitlab-org/gitlab-mcp"}
	for _, g := range h.groups() {
		sc := h.toolsRead(t, g, "alice", "list_wiki_pages", mcp)
		if got := strings.Join(toolsField(toolsItems(t, sc), "slug"), " "); got != "home releases toolsets" {
			t.Errorf("%s: slugs %q", g.Name, got)
		}
		toolsExpectField(t, sc, h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/wikis/home", "items", 0, "webUrl")
		toolsExpectField(t, sc, "Home", "items", 0, "title")
		toolsExpectField(t, sc, nil, "metadata", "end_cursor")
	}
	ce := h.groups()[0]
	// A guest reads the public project's wiki (carol has no EE seat).
	toolsExpectField(t, h.toolsRead(t, ce, "carol", "list_wiki_pages", mcp), "toolsets", "items", 2, "slug")
	var seen []string
	args := overrideArgs(mcp, "first", 2)
	for range 5 {
		page := h.toolsRead(t, ce, "alice", "list_wiki_pages", args)
		seen = append(seen, toolsField(toolsItems(t, page), "slug")...)
		end := toolsDig(page, "metadata", "end_cursor")
		if end == nil {
			break
		}
		args = overrideArgs(args, "after", end)
	}
	if got := strings.Join(seen, " "); got != "home releases toolsets" {
		t.Errorf("paged slugs %q", got)
	}
	// A cursor of one wiki does not page another; a forged one is refused.
	p1 := h.toolsRead(t, ce, "alice", "list_wiki_pages", overrideArgs(mcp, "first", 1))
	h.toolsInvalid(t, ce, "alice", "list_wiki_pages", map[string]any{"project_id": "acme/secret-plans",
		"after": toolsDig(p1, "metadata", "end_cursor")}, "is not a cursor of this list (it was returned for other arguments)")
	h.toolsInvalid(t, ce, "alice", "list_wiki_pages", overrideArgs(mcp, "after", "forged.cursor"), "after")
	h.toolsInvalid(t, ce, "alice", "list_wiki_pages", overrideArgs(mcp, "first", 101), "first")
	h.toolsInvalid(t, ce, "alice", "list_wiki_pages", map[string]any{}, "exactly one of project_id or group_id")
	h.toolsInvalid(t, ce, "alice", "list_wiki_pages", overrideArgs(mcp, "group_id", "gitlab-org"), "exactly one")
	h.toolsFailWith(t, ce, "alice", "list_wiki_pages", map[string]any{"group_id": "gitlab-org"},
		"This wiki isn't available. It may be disabled, not available on the current plan, or you don't have permission "+
			"to view it. If you expected access, check the wiki's settings or contact an administrator.")
	// The private project's (empty) wiki reads as a missing project to an
	// outsider, and as an empty list to its maintainer.
	h.toolsSameAsMissing(t, ce, "bob", "list_wiki_pages", map[string]any{"project_id": "acme/secret-plans"},
		map[string]any{"project_id": "acme/no-such-project"})
	h.toolsSameAsMissing(t, ce, "bob", "list_wiki_pages", map[string]any{"group_id": "acme"}, map[string]any{"group_id": "nope"})
	if n := len(toolsItems(t, h.toolsRead(t, ce, "alice", "list_wiki_pages", map[string]any{"project_id": "acme/secret-plans"}))); n != 0 {
		t.Errorf("secret-plans wiki: %d pages", n)
	}
	h.toolsBlocked(t, ce, "list_wiki_pages", mcp)
}

// get_saved_view_work_items: GitLab's schema, but saved views do not exist
// on glmcp: unlisted, and a call says so.
func TestTools_getSavedViewWorkItems(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		h.toolsFailWith(t, g, "alice", "get_saved_view_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp",
			"saved_view_id": "gid://gitlab/WorkItems::SavedViews::SavedView/1"},
			"The tool get_saved_view_work_items is not available on this instance: glmcp has no saved views. "+
				"Use list_work_items with the view's filters instead.")
		h.toolsInvalid(t, g, "alice", "get_saved_view_work_items", map[string]any{"project_id": "gitlab-org/gitlab-mcp"}, "saved_view_id")
	}
}

// wiMCP names work item iid of gitlab-org/gitlab-mcp.
func wiMCP(iid int) map[string]any {
	return map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": iid}
}

// widget returns the widget of type typ of a get_work_item answer.
func widget(t testing.TB, sc map[string]any, typ string) map[string]any {
	t.Helper()
	for _, w := range toolsArray(t, sc["widgets"]) {
		if m, _ := w.(map[string]any); m["type"] == typ {
			return m
		}
	}
	t.Fatalf("no %s widget in %v", typ, sc["widgets"])
	return nil
}

// get_work_item (GitLab 19.5): one work item with its widgets, and the
// notes or related merge requests facet; a hidden one reads as missing.
func TestTools_getWorkItem(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]

	t.Run("widgets, both groups", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_work_item", wiMCP(2))
			toolsExpectField(t, sc, "Support the 2026-07-28 stateless protocol revision", "title")
			toolsExpectField(t, sc, "2", "iid")
			toolsExpectField(t, sc, "OPEN", "state")
			toolsExpectField(t, sc, "Issue", "workItemType", "name")
			toolsExpectField(t, sc, "gitlab-org/gitlab-mcp#2", "reference")
			toolsExpectField(t, sc, h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/work_items/2", "webUrl")
			toolsExpectField(t, sc, "root", "author", "username")
			toolsExpectField(t, sc, "gitlab-org/gitlab-mcp", "namespace", "fullPath")
			toolsExpectField(t, widget(t, sc, "ASSIGNEES"), "alice", "assignees", "nodes", 0, "username")
			toolsExpectField(t, widget(t, sc, "LABELS"), "feature", "labels", "nodes", 0, "title")
			toolsExpectField(t, widget(t, sc, "LABELS"), "#428bca", "labels", "nodes", 0, "color")
			toolsExpectField(t, widget(t, sc, "MILESTONE"), "18.8", "milestone", "title")
			hier := widget(t, sc, "HIERARCHY")
			if hier["hasChildren"] != true || hier["hasParent"] != false || hier["parent"] != nil {
				t.Errorf("%s: hierarchy of #2 = %v", g.Name, hier)
			}
			if n := widget(t, sc, "NOTES"); len(n) != 1 {
				t.Errorf("%s: the notes widget without the facet = %v", g.Name, n)
			}
		}
		// A task, by URL: its parent and dates.
		task := h.toolsRead(t, ce, "carol", "get_work_item", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/work_items/7"})
		toolsExpectField(t, task, "Task", "workItemType", "name")
		toolsExpectField(t, task, "Validate the Mcp-Method and Mcp-Name headers", "title")
		toolsExpectField(t, widget(t, task, "HIERARCHY"), "2", "parent", "iid")
		toolsExpectField(t, widget(t, task, "HIERARCHY"), true, "hasParent")
		toolsExpectField(t, widget(t, task, "ASSIGNEES"), "bob", "assignees", "nodes", 0, "username")
		if d := widget(t, task, "START_AND_DUE_DATE"); d["startDate"] == nil || d["dueDate"] == nil {
			t.Errorf("task dates = %v", d)
		}
		// /-/issues/ URLs work too.
		toolsExpectField(t, h.toolsRead(t, ce, "alice", "get_work_item", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/issues/1"}),
			"CLOSED", "state")
	})

	t.Run("notes facet", func(t *testing.T) {
		sc := h.toolsRead(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "include", []any{"notes"}))
		notes := widget(t, sc, "NOTES")["notes"]
		toolsExpectField(t, notes, 6, "count")
		toolsExpectField(t, notes, false, "pageInfo", "hasNextPage")
		toolsExpectField(t, notes, "Reproduced on 18.6.1 with two clients; `get_issue` moved from position 1 to 3.", "nodes", 0, "body")
		toolsExpectField(t, notes, true, "nodes", 5, "system")
		// The cursor continues with get_workitem_notes.
		rest := h.toolsRead(t, ce, "alice", "get_workitem_notes", overrideArgs(wiMCP(1), "after", toolsDig(notes, "pageInfo", "endCursor")))
		if n := len(toolsItems(t, rest)); n != 0 {
			t.Errorf("notes after the facet's last: %d", n)
		}
		// Internal notes: a reporter sees them, counted; nobody else reads
		// the confidential issue at all.
		bob := widget(t, h.toolsRead(t, ce, "bob", "get_work_item", overrideArgs(wiMCP(3), "include", []any{"notes"})), "NOTES")["notes"]
		toolsExpectField(t, bob, 2, "count")
		toolsExpectField(t, bob, true, "nodes", 1, "internal")
		h.toolsSameAsMissing(t, ce, "carol", "get_work_item", wiMCP(3), wiMCP(99))
	})

	t.Run("related merge requests facet", func(t *testing.T) {
		mrs := func(sc map[string]any) []string {
			return toolsField(toolsArray(t, toolsDig(widget(t, sc, "DEVELOPMENT"), "relatedMergeRequests", "nodes")), "iid")
		}
		facet := []any{"related_merge_requests"}
		one := h.toolsRead(t, ce, "carol", "get_work_item", overrideArgs(wiMCP(1), "include", facet))
		if got := strings.Join(mrs(one), " "); got != "2" {
			t.Errorf("merge requests related to #1: %q", got)
		}
		toolsExpectField(t, widget(t, one, "DEVELOPMENT"), "merged", "relatedMergeRequests", "nodes", 0, "state")
		if got := mrs(h.toolsRead(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(5), "include", facet))); len(got) != 0 {
			t.Errorf("merge requests related to #5: %v", got)
		}
		// A second merge request mentioning #2 (and one mentioning #20,
		// which is not #2): two pages of one.
		// Its source branch must exist in git (merge requests are made of branches).
		toolsBranch(t, h, "gitlab-org/gitlab-mcp", "spec/validate-headers", "main")
		h.toolsWrite(t, ce, "modern", "alice", "save_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp",
			"title": "Validate the headers (part of #2)", "source_branch": "spec/validate-headers", "target_branch": "feature/server-discover",
			"description": "See also #20."})
		p1 := h.toolsRead(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(2), "include", facet, "related_merge_requests_first", 1))
		dev := widget(t, p1, "DEVELOPMENT")["relatedMergeRequests"]
		toolsExpectField(t, dev, true, "pageInfo", "hasNextPage")
		if got := strings.Join(mrs(p1), " "); got != "1" {
			t.Errorf("page 1: %q", got)
		}
		// The deprecated names still page.
		p2 := h.toolsRead(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(2), "include", facet, "mr_page_size", 1,
			"mr_pagination_cursor", toolsDig(dev, "pageInfo", "endCursor")))
		if got := strings.Join(mrs(p2), " "); got != "3" {
			t.Errorf("page 2: %q", got)
		}
		toolsExpectField(t, widget(t, p2, "DEVELOPMENT"), false, "relatedMergeRequests", "pageInfo", "hasNextPage")
		// A cursor of #2's list does not page #1's.
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "include", facet,
			"related_merge_requests_after", toolsDig(dev, "pageInfo", "endCursor")), "is not a cursor of this list (it was returned for other arguments)")
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "include", facet,
			"related_merge_requests_after", "forged.cursor"), "related_merge_requests_after")
	})

	t.Run("validation, not found, permissions", func(t *testing.T) {
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "include", []any{"notes", "related_merge_requests"}), "include")
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "include", []any{"comments"}), "include")
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "related_merge_requests_first", 5), "apply only when include")
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "related_merge_requests_first", 101, "include", []any{"related_merge_requests"}), "related_merge_requests_first")
		h.toolsInvalid(t, ce, "alice", "get_work_item", map[string]any{"project_id": "gitlab-org/gitlab-mcp"}, "work_item_iid")
		h.toolsInvalid(t, ce, "alice", "get_work_item", overrideArgs(wiMCP(1), "url", h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/work_items/1"), "not both")
		h.toolsInvalid(t, ce, "alice", "get_work_item", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/1"}, "work item URL")
		h.toolsFailWith(t, ce, "alice", "get_work_item", wiMCP(99), "404 Work Item Not Found")
		h.toolsFailWith(t, ce, "alice", "get_work_item", map[string]any{"group_id": "gitlab-org", "work_item_iid": 1}, "404 Work Item Not Found")
		h.toolsSameAsMissing(t, ce, "bob", "get_work_item", map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1},
			map[string]any{"project_id": "acme/no-such-project", "work_item_iid": 1})
		h.toolsBlocked(t, ce, "get_work_item", wiMCP(1))
	})
}

// save_work_item (GitLab 19.5; aliases create_work_item, update_work_item):
// create without an iid, update with one; Reporter and above; every
// refused call leaves the store as it was.
func TestTools_saveWorkItem(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	create := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "title": "Document server/discover",
		"type_name": "task", "labels": []any{"documentation"}, "milestone": "18.8"}

	t.Run("refused writes change nothing", func(t *testing.T) {
		zed := toolsAddUser(t, h, "zed") // a member of nothing
		h.toolsFailWith(t, ce, "carol", "save_work_item", create,
			"Forbidden: you need at least the Reporter role in project gitlab-org/gitlab-mcp to create work items")
		h.toolsFailWith(t, ce, "carol", "save_work_item", overrideArgs(wiMCP(4), "title", "Mine"),
			"Forbidden: you need at least the Reporter role in project gitlab-org/gitlab-mcp to update work items")
		h.toolsSameAsMissing(t, ce, "bob", "save_work_item", overrideArgs(create, "project_id", "acme/secret-plans"),
			overrideArgs(create, "project_id", "acme/nope"))
		h.toolsSameAsMissing(t, ce, "bob", "save_work_item", map[string]any{"project_id": "acme/secret-plans", "work_item_iid": 1, "title": "x"},
			map[string]any{"project_id": "acme/nope", "work_item_iid": 1, "title": "x"})
		h.toolsSameAsMissing(t, ce, "carol", "save_work_item", overrideArgs(wiMCP(3), "title", "x"), overrideArgs(wiMCP(99), "title", "x"))
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{overrideArgs(create, "title", nil), "title is required when creating a work item"},
			{overrideArgs(create, "type_name", nil), "type_name is required when creating a work item"},
			{overrideArgs(create, "type_name", "Epic"), "Work item type 'Epic' not found. Valid types: Issue, Incident, Task, Ticket"},
			{overrideArgs(create, "state", "closed"), "state can only be used when updating (provide work_item_iid)"},
			{overrideArgs(create, "add_labels", []any{"bug"}), "add_labels can only be used when updating"},
			{overrideArgs(wiMCP(4), "labels", []any{"bug"}), "labels can only be used when creating (omit work_item_iid)"},
			{overrideArgs(wiMCP(4), "type_name", "Task"), "type_name can only be used when creating"},
			{overrideArgs(create, "labels", []any{"documentation", "nope", "nada"}), "Labels not found in gitlab-org/gitlab-mcp: nope, nada"},
			{overrideArgs(create, "label_ids", []any{"gid://gitlab/ProjectLabel/99999"}), "label_ids: labels with id 99999 not found"},
			{overrideArgs(create, "label_ids", []any{"gid://gitlab/Milestone/1"}), "label_ids: \"gid://gitlab/Milestone/1\" is not a global ID of a Label"},
			{overrideArgs(create, "milestone", "99.9"), "Milestone '99.9' not found in gitlab-org/gitlab-mcp"},
			{overrideArgs(create, "milestone_id", "gid://gitlab/Milestone/99999"), "Milestone with id 99999 not found in gitlab-org/gitlab-mcp"},
			{overrideArgs(create, "assignee_ids", []any{zed.ID}), "is not a member of project gitlab-org/gitlab-mcp"},
			{overrideArgs(create, "parent_id", "gid://gitlab/WorkItem/99999"), "parent_id: work item 99999 not found in gitlab-org/gitlab-mcp"},
			{overrideArgs(create, "type_name", "Issue", "parent_id", wiGID(t, h, mcp.ID, 2)), "parent_id: a work item of type Issue cannot have a child of type Issue"},
			{overrideArgs(create, "description", "Fine.\n/close"), "Quick actions (commands starting with /) are not allowed in description"},
			{overrideArgs(create, "start_date", "2026-12-01", "due_date", "2026-11-01"), "start_date 2026-12-01 is after due_date 2026-11-01"},
			{overrideArgs(create, "due_date", "next week"), "due_date: \"next week\" is not a date in YYYY-MM-DD format"},
			{overrideArgs(create, "url", h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp"), "Provide exactly one of url, project_id, or group_id (got url, project_id)"},
			{overrideArgs(create, "project_id", nil), "Must provide either project_id or group_id"},
			{overrideArgs(create, "project_id", nil, "group_id", "gitlab-org"), "group-level work items (epics) are not available"},
			{overrideArgs(wiMCP(4), "todo_action", "add"), "todo_action: to-dos are not available on this instance"},
			{overrideArgs(wiMCP(4), "todo_id", "1"), "todo_action is required when todo_id is provided"},
			{overrideArgs(wiMCP(7), "due_date", "2020-01-01"), "is after due_date 2020-01-01"},
			{overrideArgs(wiMCP(7), "parent_id", wiGID(t, h, mcp.ID, 6)), "a work item of type Task cannot have a child of type Task"},
			// Schema violations.
			{overrideArgs(wiMCP(4), "state", "reopened"), "/state"},
			{overrideArgs(create, "work_item_iid", -1), "/work_item_iid"},
			{overrideArgs(create, "health_status", "onTrack"), "health_status"},
			{overrideArgs(create, "title", strings.Repeat("x", 256)), "/title"},
		} {
			h.toolsInvalid(t, ce, "alice", "save_work_item", c.args, c.want)
		}
		h.toolsFailWith(t, ce, "alice", "save_work_item", overrideArgs(wiMCP(99), "title", "x"), "404 Work Item Not Found")
		h.toolsBlocked(t, ce, "save_work_item", create)
	})

	t.Run("create and update", func(t *testing.T) {
		for _, era := range eras {
			sc := h.toolsWrite(t, ce, era, "alice", "save_work_item", overrideArgs(create, "title", "Document server/discover ("+era+")",
				"parent_id", wiGID(t, h, mcp.ID, 2), "assignee_ids", []any{authUser(t, h, "bob").ID}, "start_date", "2026-11-01",
				"description", "Cover `ttlMs`.\n\nSee /docs."))
			toolsExpectField(t, sc, "Task", "type")
			toolsExpectField(t, sc, "OPEN", "state")
			toolsExpectField(t, sc, false, "confidential")
			iid := toolsDig(sc, "iid")
			toolsExpectField(t, sc, h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/work_items/"+fmt.Sprint(iid), "web_url")
			num, _ := strconv.Atoi(fmt.Sprint(iid)) // GraphQL iids are strings
			ref := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": num}
			got := h.toolsRead(t, ce, "alice", "get_work_item", ref)
			toolsExpectField(t, widget(t, got, "HIERARCHY"), "2", "parent", "iid")
			toolsExpectField(t, widget(t, got, "LABELS"), "documentation", "labels", "nodes", 0, "title")
			toolsExpectField(t, widget(t, got, "MILESTONE"), "18.8", "milestone", "title")
			toolsExpectField(t, widget(t, got, "ASSIGNEES"), "bob", "assignees", "nodes", 0, "username")
			toolsExpectField(t, widget(t, got, "START_AND_DUE_DATE"), "2026-11-01", "startDate")

			// A reporter may update: labels, milestone by global id, dates,
			// state, confidentiality, parent removed, assignees cleared.
			up := h.toolsWrite(t, ce, era, "bob", "save_work_item", overrideArgs(ref, "title", "Document discovery",
				"add_labels", []any{"feature"}, "remove_labels", []any{"documentation"}, "milestone", "18.7",
				"due_date", "2026-11-20", "state", "closed", "confidential", true, "parent_id", "", "assignee_ids", []any{}))
			toolsExpectField(t, up, "CLOSED", "state")
			toolsExpectField(t, up, true, "confidential")
			toolsExpectField(t, up, "Document discovery", "title")
			got = h.toolsRead(t, ce, "alice", "get_work_item", ref)
			if labels := toolsField(toolsArray(t, toolsDig(widget(t, got, "LABELS"), "labels", "nodes")), "title"); strings.Join(labels, ",") != "feature" {
				t.Errorf("%s: labels after update %v", era, labels)
			}
			toolsExpectField(t, widget(t, got, "MILESTONE"), "18.7", "milestone", "title")
			toolsExpectField(t, widget(t, got, "START_AND_DUE_DATE"), "2026-11-20", "dueDate")
			toolsExpectField(t, widget(t, got, "HIERARCHY"), false, "hasParent")
			if n := len(toolsArray(t, toolsDig(widget(t, got, "ASSIGNEES"), "assignees", "nodes"))); n != 0 {
				t.Errorf("%s: %d assignees after clearing", era, n)
			}
			// Reopen through the alias, by URL, with the milestone's global id.
			re := h.toolsWrite(t, ce, era, "alice", "update_work_item", map[string]any{"url": fmt.Sprint(toolsDig(sc, "web_url")),
				"state": "opened", "milestone_id": toolsDig(widget(t, h.toolsRead(t, ce, "alice", "get_work_item", wiMCP(2)), "MILESTONE"), "milestone", "id")})
			toolsExpectField(t, re, "OPEN", "state")
		}
		// create_work_item is an alias too; work_item_iid 0 means create.
		sc := h.toolsWrite(t, ce, "modern", "bob", "create_work_item", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/gitlab-mcp/-/issues",
			"title": "An incident", "type_name": "INCIDENT", "work_item_iid": 0, "label_ids": []any{fmt.Sprint(wiLabelID(t, h, mcp.ID, "bug"))}})
		toolsExpectField(t, sc, "Incident", "type")
	})

	t.Run("concurrent creates get distinct iids", func(t *testing.T) {
		const n = 8
		before := toolsMaxIID(t, h, "issues", mcp.ID)
		iids := make([]string, n)
		var wg sync.WaitGroup
		for k := range n {
			wg.Go(func() {
				res := toolsResult(t, ce, eras[k%2], h.toolsCall(t, ce, eras[k%2], "alice", "save_work_item",
					overrideArgs(create, "title", fmt.Sprint("Racing task ", k))))
				iids[k] = fmt.Sprint(toolsDig(res, "structuredContent", "iid"))
			})
		}
		wg.Wait()
		seen := map[string]bool{}
		for _, iid := range iids {
			if iid == "<nil>" || seen[iid] {
				t.Fatalf("iids %v: want %d distinct", iids, n)
			}
			seen[iid] = true
		}
		if after := toolsMaxIID(t, h, "issues", mcp.ID); after != before+n {
			t.Errorf("max iid %d → %d, want +%d", before, after, n)
		}
	})
}

// wiGID is the global id of work item iid of project projectID.
func wiGID(t testing.TB, h *harness, projectID int64, iid int64) string {
	t.Helper()
	return fmt.Sprint("gid://gitlab/WorkItem/", storetest.Int(t, h.Env.Store, "SELECT id FROM issues WHERE project_id = ? AND iid = ?", projectID, iid))
}

// wiLabelID is the id of label name of project projectID.
func wiLabelID(t testing.TB, h *harness, projectID int64, name string) int64 {
	t.Helper()
	return storetest.Int(t, h.Env.Store, "SELECT id FROM labels WHERE project_id = ? AND name = ?", projectID, name)
}

// link_work_items (GitLab 19.5): relates_to on both endpoints, blocks and
// blocked_by on EE only; Reporter on the source, read access to every
// target; racing links of one pair store one link.
func TestTools_linkWorkItems(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	mcp := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	secret := toolsProject(t, h, "acme/secret-plans")
	link := func(source int, targets ...string) map[string]any {
		ids := []any{}
		for _, t := range targets {
			ids = append(ids, t)
		}
		return overrideArgs(wiMCP(source), "work_items_ids", ids)
	}
	links := func(where string, args ...any) int64 {
		return storetest.Int(t, h.Env.Store, "SELECT COUNT(*) FROM issue_links WHERE "+where, args...)
	}

	t.Run("refused writes change nothing", func(t *testing.T) {
		four, five := wiGID(t, h, mcp.ID, 4), wiGID(t, h, mcp.ID, 5)
		h.toolsFailWith(t, ce, "carol", "link_work_items", link(4, five),
			"Forbidden: you need at least the Reporter role in project gitlab-org/gitlab-mcp to link work items")
		h.toolsSameAsMissing(t, ce, "bob", "link_work_items", overrideArgs(link(1, five), "project_id", "acme/secret-plans"),
			overrideArgs(link(1, five), "project_id", "acme/nope"))
		// A target the caller cannot read reads as one that does not exist.
		text := h.toolsSameAsMissing(t, ce, "bob", "link_work_items", link(4, wiGID(t, h, secret.ID, 1)), link(4, "gid://gitlab/WorkItem/99999"))
		if text != "No matching work item found. Make sure you are adding a valid ID and you have access to the item." {
			t.Errorf("hidden target: %q", text)
		}
		h.toolsInvalid(t, ce, "alice", "link_work_items", link(4, four), "cannot be linked to itself")
		h.toolsInvalid(t, ce, "alice", "link_work_items", link(4, "12x"), "Invalid target work item ID format: '12x'. Expected an iid (integer) or a global ID (gid://gitlab/WorkItem/<id>)")
		h.toolsFailWith(t, ce, "alice", "link_work_items", link(4, "99"), "Target work item with iid '99' not found in gitlab-org/gitlab-mcp. Use a global ID (gid://gitlab/WorkItem/<id>) for work items in other projects or groups.")
		h.toolsInvalid(t, ce, "alice", "link_work_items", link(4, "gid://gitlab/Issue/5"), "Invalid target work item ID format")
		h.toolsInvalid(t, ce, "alice", "link_work_items", overrideArgs(link(4, five), "link_type", "blocks"), "Invalid link_type: 'blocks'", "EE endpoint")
		h.toolsInvalid(t, ce, "alice", "link_work_items", overrideArgs(link(4, five), "link_type", "duplicates"), "/link_type")
		h.toolsInvalid(t, ce, "alice", "link_work_items", link(4), "/work_items_ids")
		eleven := link(4, five, five, five, five, five, five, five, five, five, five, five)
		h.toolsInvalid(t, ce, "alice", "link_work_items", eleven, "/work_items_ids")
		h.toolsInvalid(t, ce, "alice", "link_work_items", wiMCP(4), "work_items_ids")
		h.toolsInvalid(t, ce, "alice", "link_work_items", map[string]any{"work_items_ids": []any{five}}, "provide url")
		// #1 and #4 are related in the demo world, either way round.
		for _, args := range []map[string]any{link(1, four), link(4, wiGID(t, h, mcp.ID, 1)), link(4, five, wiGID(t, h, mcp.ID, 1))} {
			if text := h.toolsFail(t, ce, "alice", "link_work_items", args); !strings.HasPrefix(text, "Conflict: gitlab-org/gitlab-mcp#") ||
				!strings.Contains(text, "already linked") {
				t.Errorf("%v: %q", args, text)
			}
		}
		h.toolsFailWith(t, ce, "alice", "link_work_items", link(99, five), "404 Work Item Not Found")
		h.toolsBlocked(t, ce, "link_work_items", link(4, five))
	})

	t.Run("relates_to, blocks, blocked_by", func(t *testing.T) {
		five, six := wiGID(t, h, mcp.ID, 5), wiGID(t, h, mcp.ID, 6)
		sc := h.toolsWrite(t, ce, "legacy", "bob", "link_work_items", link(4, five, six, five))
		toolsExpectField(t, sc, "4", "workItem", "iid")
		toolsExpectField(t, sc, "[]", "errors")
		if msg := fmt.Sprint(sc["message"]); !strings.HasPrefix(msg, "Successfully linked ID(s): ") || !strings.Contains(msg, " and ") {
			t.Errorf("message %q", msg)
		}
		src := storetest.Int(t, h.Env.Store, "SELECT id FROM issues WHERE project_id = ? AND iid = 4", mcp.ID)
		if n := links("source_id = ? AND link_type = 'relates_to'", src); n != 2 {
			t.Errorf("relates_to links from #4: %d, want 2", n)
		}
		// Across projects, on EE: blocks, and blocked_by stored as a blocks
		// link from the other side.
		seven := storetest.Int(t, h.Env.Store, "SELECT id FROM issues WHERE project_id = ? AND iid = 7", mcp.ID)
		secretOne := wiGID(t, h, secret.ID, 1)
		h.toolsWrite(t, ee, "modern", "alice", "link_work_items", overrideArgs(link(7, secretOne), "link_type", "blocks"))
		h.toolsWrite(t, ee, "legacy", "alice", "link_work_items", overrideArgs(link(7, five), "link_type", "blocked_by"))
		if n := links("source_id = ? AND link_type = 'blocks'", seven); n != 1 {
			t.Errorf("blocks links from #7: %d, want 1", n)
		}
		if n := links("target_id = ? AND link_type = 'blocks'", seven); n != 1 {
			t.Errorf("blocks links to #7: %d, want 1", n)
		}
	})

	t.Run("racing links of one pair store one", func(t *testing.T) {
		two := storetest.Int(t, h.Env.Store, "SELECT id FROM issues WHERE project_id = ? AND iid = 2", mcp.ID)
		four := wiGID(t, h, mcp.ID, 4)
		const n = 6
		texts := make([]string, n)
		var wg sync.WaitGroup
		for k := range n {
			wg.Go(func() {
				res := toolsResult(t, ce, eras[k%2], h.toolsCall(t, ce, eras[k%2], "alice", "link_work_items", link(2, four)))
				texts[k] = "ok"
				if res["isError"] == true {
					texts[k] = toolsText(t, res)
				}
			})
		}
		wg.Wait()
		ok := 0
		for _, text := range texts {
			switch {
			case text == "ok":
				ok++
			case text != "Conflict: gitlab-org/gitlab-mcp#2 is already linked to one of these work items; nothing was linked":
				t.Errorf("a losing call answered %q", text)
			}
		}
		if ok != 1 || links("source_id = ? OR target_id = ?", two, two) != 1 {
			t.Errorf("%d calls linked, %d links of #2; want 1 and 1 (%v)", ok, links("source_id = ? OR target_id = ?", two, two), texts)
		}
	})
}
