package gitlab_test

import (
	"context"
	"strconv"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// TestLinkWorkItems_iids: work_items_ids takes plain iids as GitLab 19.5
// does (a JSON number or a string of digits), resolved in the source work
// item's project, beside global IDs. An iid with no work item there, and
// anything that is neither, is refused with GitLab's texts and writes
// nothing.
func TestLinkWorkItems_iids(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	mcp := w.project("gitlab-org/gitlab-mcp")
	issue := func(p *models.Project, title string) *models.Issue {
		i := &models.Issue{ProjectID: p.ID, Title: title, AuthorID: w.Alice.ID}
		if err := w.st.Issues.CreateIssue(ctx, i); err != nil {
			t.Fatal(err)
		}
		return i
	}
	source, a, b, c := issue(mcp, "Link source"), issue(mcp, "Target a"), issue(mcp, "Target b"), issue(mcp, "Target c")
	args := func(ids ...any) map[string]any {
		return map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": source.IID, "work_items_ids": ids}
	}
	linked := func() int64 {
		return storetest.Int(t, w.st, "SELECT COUNT(*) FROM issue_links WHERE source_id = ? OR target_id = ?", source.ID, source.ID)
	}

	t.Run("refusals write nothing", func(t *testing.T) {
		before := w.state(t)
		w.fails(t, w.Bob, "link_work_items", args(a.IID, "999999"),
			"Target work item with iid '999999' not found in gitlab-org/gitlab-mcp. Use a global ID "+
				"(gid://gitlab/WorkItem/<id>) for work items in other projects or groups.")
		for _, bad := range []any{"abc", "12x", " 12", "0x1f"} {
			w.fails(t, w.Bob, "link_work_items", args(bad), "Validation error: Invalid target work item ID format: '"+bad.(string)+
				"'. Expected an iid (integer) or a global ID (gid://gitlab/WorkItem/<id>)")
		}
		w.fails(t, w.Bob, "link_work_items", args("gid://gitlab/WorkItem/x"), "Validation error: Invalid work item ID format: "+
			"'gid://gitlab/WorkItem/x'. Expected GitLab global ID (gid://gitlab/WorkItem/<id>)")
		for _, bad := range []any{0, -3, 1.5} {
			if res := w.call(t, w.Bob, "link_work_items", args(bad)); !res.IsError {
				t.Errorf("work_items_ids [%v]: %s, want a refusal", bad, res.Text)
			}
		}
		w.fails(t, w.Bob, "link_work_items", args(strconv.FormatInt(source.IID, 10)), "Validation error: a work item cannot be linked to itself")
		// Below Reporter: forbidden before any iid is looked up.
		w.fails(t, w.Stranger, "link_work_items", args("999999"), "Forbidden: ")
		w.unchanged(t, before)
		if n := linked(); n != 0 {
			t.Fatalf("links of the source: %d, want none", n)
		}
	})

	t.Run("iids as numbers and strings, beside global IDs", func(t *testing.T) {
		m := w.ok(t, w.Bob, "link_work_items", args(a.IID, strconv.FormatInt(b.IID, 10), "gid://gitlab/WorkItem/"+itoa(c.ID)))
		wantFields(t, "result", m, map[string]any{"message": "Successfully linked ID(s): " + itoa(a.ID) + ", " + itoa(b.ID) +
			", and " + itoa(c.ID) + "."})
		if n := storetest.Int(t, w.st, "SELECT COUNT(*) FROM issue_links WHERE source_id = ? AND target_id IN (?, ?, ?)",
			source.ID, a.ID, b.ID, c.ID); n != 3 || linked() != 3 {
			t.Errorf("links from the source to a, b and c: %d of %d, want 3 of 3", n, linked())
		}
	})
}
