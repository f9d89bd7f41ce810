package spec

import (
	"testing"
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
