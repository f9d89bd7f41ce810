package store_test

import (
	"context"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// Ensure rules are set (replaced, never duplicated), found nearest first
// with the tool's own rule before the every-write-tool rule, that bad rules
// change nothing, and that an approval is used once even when instances
// race.
func TestStore_ToolRules(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := mustCreateProject(t, s, "acme", "app")
		g := p.NamespaceID
		set := func(r models.ToolRule) error { return s.Tools.SetToolRule(ctx, &r) }
		wantErr(t, "group writes ask", set(models.ToolRule{NamespaceID: &g, Rule: models.RuleAsk}), nil)
		wantErr(t, "group create_issue deny", set(models.ToolRule{NamespaceID: &g, Tool: "create_issue", Rule: models.RuleDeny}), nil)
		wantErr(t, "project writes allow", set(models.ToolRule{ProjectID: &p.ID, Rule: models.RuleAllow}), nil)
		wantErr(t, "project writes allow again", set(models.ToolRule{ProjectID: &p.ID, Rule: models.RuleAsk}), nil)

		wantErr(t, "no target", set(models.ToolRule{Rule: models.RuleAsk}), models.ErrInvalidInput)
		wantErr(t, "two targets", set(models.ToolRule{ProjectID: &p.ID, NamespaceID: &g, Rule: models.RuleAsk}), models.ErrInvalidInput)
		wantErr(t, "bad rule", set(models.ToolRule{ProjectID: &p.ID, Rule: "maybe"}), models.ErrInvalidInput)
		missing := int64(9999)
		wantErr(t, "unknown project", set(models.ToolRule{ProjectID: &missing, Rule: models.RuleAsk}), models.ErrInvalidInput)
		if n := countRows(t, s, "tool_rules"); n != 3 {
			t.Fatalf("%d rules, want 3 (a replaced rule is not duplicated, refused ones are not written)", n)
		}

		rules, err := s.Tools.ToolRulesFor(ctx, p.ID, g, "create_issue")
		if err != nil || len(rules) != 3 {
			t.Fatalf("ToolRulesFor = %+v, %v", rules, err)
		}
		got := []string{}
		for _, r := range rules {
			got = append(got, r.Path+"/"+r.Tool+"="+string(r.Rule))
		}
		want := []string{"acme/app/=ask", "acme/create_issue=deny", "acme/=ask"}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ToolRulesFor order = %v, want %v", got, want)
			}
		}
		if rules, _ := s.Tools.ToolRulesFor(ctx, 0, g, "create_merge_request"); len(rules) != 1 || rules[0].Tool != "" {
			t.Fatalf("group rules for another tool = %+v", rules)
		}

		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Tools.UseApproval(ctx, &models.UsedApproval{Nonce: "n1", UserID: 1, Tool: "create_issue", Action: "accept"})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else {
				wantErr(t, "racing UseApproval", err, models.ErrConflict)
			}
		}
		if won != 1 || countRows(t, s, "tool_approvals_used") != 1 {
			t.Fatalf("%d racing uses of one approval succeeded, want 1", won)
		}
	})
}
