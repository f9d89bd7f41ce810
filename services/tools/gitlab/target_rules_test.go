package gitlab_test

import (
	"context"
	"fmt"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// TestWorkItemTarget_rulesReadTheToolsResolution: a work item tool's rule
// is the rule of the project the tool itself resolves the work item in
// (Definition.Target), so the two cannot disagree. They used to: on an
// instance under a relative URL root (https://host/gitlab), the rules read
// a work item URL's path as project "gitlab/<project>", found none and
// applied the instance default, and link_work_items' bare iid targets name
// no project of their own, so a Deny on the project the tool wrote to was
// never applied. Each refused call is checked against the store.
func TestWorkItemTarget_rulesReadTheToolsResolution(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	const root = publicURL + "/gitlab"
	svc := newRulesService(t, w, root)
	mcp := w.project("gitlab-org/gitlab-mcp")
	issue := func(title string) *models.Issue {
		i := &models.Issue{ProjectID: mcp.ID, Title: title, AuthorID: w.Alice.ID}
		if err := w.st.Issues.CreateIssue(ctx, i); err != nil {
			t.Fatal(err)
		}
		return i
	}
	source, target := issue("Rule source"), issue("Rule target")
	url := fmt.Sprintf("%s/%s/-/work_items/%d", root, mcp.PathWithNamespace, source.IID)
	if err := w.st.Tools.SetToolRule(ctx, &models.ToolRule{ProjectID: &mcp.ID, Tool: "link_work_items", Rule: models.RuleDeny}); err != nil {
		t.Fatal(err)
	}
	call := func(t *testing.T, tool string, args map[string]any) *tools.Result {
		t.Helper()
		return callRules(t, svc, w.Bob, tool, args, nil)
	}
	denied := func(t *testing.T, res *tools.Result, tool string) {
		t.Helper()
		wantDenied(t, res, tool, "gitlab-org/gitlab-mcp")
	}
	count := func(q string, args ...any) int64 { return storetest.Int(t, w.st, q, args...) }

	t.Run("a link by url under the URL root to a bare iid", func(t *testing.T) {
		before := count("SELECT COUNT(*) FROM issue_links")
		denied(t, call(t, "link_work_items", map[string]any{"url": url, "work_items_ids": []any{target.IID}}), "link_work_items")
		if n := count("SELECT COUNT(*) FROM issue_links"); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})

	t.Run("the tool's own not found stays the tool's", func(t *testing.T) {
		// A work item that is not there: the rule of its project still
		// governs the write (the project is visible), so Deny answers;
		// with the rule lifted the tool's own text answers.
		missing := fmt.Sprintf("%s/%s/-/work_items/999999", root, mcp.PathWithNamespace)
		link := map[string]any{"url": missing, "work_items_ids": []any{target.IID}}
		before := count("SELECT COUNT(*) FROM issue_links")
		denied(t, call(t, "link_work_items", link), "link_work_items")
		if err := w.st.Tools.SetToolRule(ctx, &models.ToolRule{ProjectID: &mcp.ID, Tool: "link_work_items", Rule: models.RuleAllow}); err != nil {
			t.Fatal(err)
		}
		res := call(t, "link_work_items", link)
		if !res.IsError || res.Refused || res.ErrorClass != "not_found" || res.Text != "404 Work Item Not Found" {
			t.Fatalf("result %+v, want the tool's 404 Work Item Not Found", res)
		}
		if n := count("SELECT COUNT(*) FROM issue_links"); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})
}
