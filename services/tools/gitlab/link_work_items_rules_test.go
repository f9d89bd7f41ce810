package gitlab_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// TestLinkWorkItems_rules: link_work_items writes into the source work
// item's project and into each linked item's (GitLab shows the link on
// both sides), so the strictest rule of every project it links into that
// the caller can read governs the call; a linked item the caller cannot
// read shows no rule of its project (the tool answers not found, as for a
// missing one). Each refused call is checked against the store: no link
// row written.
func TestLinkWorkItems_rules(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	svc := newRulesService(t, w, publicURL)
	mcp, orbit, secret := w.project("gitlab-org/gitlab-mcp"), w.project("gitlab-org/orbit"), w.project("acme/secret-plans")
	issue := func(p *models.Project, title string) *models.Issue {
		i := &models.Issue{ProjectID: p.ID, Title: title, AuthorID: w.Alice.ID}
		if err := w.st.Issues.CreateIssue(ctx, i); err != nil {
			t.Fatal(err)
		}
		return i
	}
	source, sibling := issue(mcp, "Link source"), issue(mcp, "Link sibling")
	inOrbit, inSecret := issue(orbit, "Link target in orbit"), issue(secret, "Link target in secret-plans")
	gidOf := func(i *models.Issue) string { return "gid://gitlab/WorkItem/" + strconv.FormatInt(i.ID, 10) }
	links := func() int64 { return storetest.Int(t, w.st, "SELECT COUNT(*) FROM issue_links") }
	set := func(projectID int64, rule models.ToolRuleKind) {
		t.Helper()
		if err := w.st.Tools.SetToolRule(ctx, &models.ToolRule{ProjectID: &projectID, Tool: "link_work_items", Rule: rule}); err != nil {
			t.Fatal(err)
		}
	}
	// call links source to targets as bob (Reporter in gitlab-mcp and
	// orbit, nothing in acme/secret-plans), from a client that can be
	// asked for approval.
	call := func(t *testing.T, targets ...*models.Issue) *tools.Result {
		t.Helper()
		ids := []string{}
		for _, i := range targets {
			ids = append(ids, gidOf(i))
		}
		return callRules(t, svc, w.Bob, "link_work_items",
			map[string]any{"project_id": mcp.PathWithNamespace, "work_item_iid": source.IID, "work_items_ids": ids},
			map[string]json.RawMessage{"elicitation": json.RawMessage(`{}`)})
	}
	denied := func(t *testing.T, res *tools.Result, where string) {
		t.Helper()
		wantDenied(t, res, "link_work_items", where)
	}
	asked := func(t *testing.T, res *tools.Result) string {
		t.Helper()
		req, ok := res.InputRequests["approval"]
		if res.IsError || !ok || req.Method != tools.InputElicit || res.RequestState == "" {
			t.Fatalf("result %+v, want an approval question", res)
		}
		msg, _ := req.Params.(map[string]any)["message"].(string)
		return msg
	}

	t.Run("deny on a linked item's project: denied, nothing written", func(t *testing.T) {
		set(orbit.ID, models.RuleDeny)
		before := links()
		denied(t, call(t, inOrbit), "gitlab-org/orbit")
		denied(t, call(t, sibling, inOrbit), "gitlab-org/orbit")
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})

	t.Run("deny beats ask on the source's project", func(t *testing.T) {
		set(mcp.ID, models.RuleAsk)
		defer set(mcp.ID, models.RuleAllow)
		before := links()
		denied(t, call(t, inOrbit), "gitlab-org/orbit")
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})

	t.Run("ask on a linked item's project: asked, naming every target", func(t *testing.T) {
		set(orbit.ID, models.RuleAsk)
		before := links()
		msg := asked(t, call(t, sibling, inOrbit))
		want := "Approve a write by link_work_items on gitlab-org/gitlab-mcp and gitlab-org/orbit? " +
			`(the "ask" rule for link_work_items on gitlab-org/orbit asks for approval.)`
		if !strings.HasPrefix(msg, want) {
			t.Errorf("approval message:\n%s\nwant it to start:\n%s", msg, want)
		}
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written before approval", before, n)
		}
	})

	t.Run("a hidden linked item shows no rule of its project", func(t *testing.T) {
		set(orbit.ID, models.RuleAllow)
		set(secret.ID, models.RuleDeny)
		before := links()
		hidden := call(t, inSecret)
		missing := call(t, &models.Issue{ID: 999999})
		want := "No matching work item found. Make sure you are adding a valid ID and you have access to the item."
		for _, res := range []*tools.Result{hidden, missing} {
			if !res.IsError || res.Refused || res.ErrorClass != "not_found" || res.Text != want {
				t.Errorf("result %+v, want the tool's not found %q", res, want)
			}
		}
		// Under an Ask, the question names only what bob can read.
		set(orbit.ID, models.RuleAsk)
		msg := asked(t, call(t, inOrbit, inSecret))
		if strings.Contains(msg, "secret-plans") || strings.Contains(msg, "acme") ||
			!strings.HasPrefix(msg, "Approve a write by link_work_items on gitlab-org/gitlab-mcp and gitlab-org/orbit? ") {
			t.Errorf("approval message names a project bob cannot read:\n%s", msg)
		}
		if n := links(); n != before {
			t.Fatalf("issue_links %d → %d, want nothing written", before, n)
		}
	})

	t.Run("allow everywhere: linked", func(t *testing.T) {
		set(orbit.ID, models.RuleAllow)
		set(secret.ID, models.RuleAllow)
		before := links()
		if res := call(t, sibling, inOrbit); res.IsError || len(res.InputRequests) > 0 {
			t.Fatalf("result %+v, want the link written", res)
		}
		if n := links(); n != before+2 {
			t.Fatalf("issue_links %d → %d, want 2 written", before, n)
		}
		if n := storetest.Int(t, w.st, "SELECT COUNT(*) FROM issue_links WHERE source_id = ? AND target_id IN (?, ?)",
			source.ID, sibling.ID, inOrbit.ID); n != 2 {
			t.Errorf("links from the source to both targets: %d, want 2", n)
		}
	})
}
