package spec

import (
	"context"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// TestToolRules_groupVisibility: a rule on a group the caller cannot see
// reads as no rule, so the call answers byte for byte what it answers for a
// group that does not exist (nothing is written either way: the caller
// cannot write there); for those who see the group the rule applies, and it
// governs the projects below it (doc/auth.md, "Rules and visibility").
func TestToolRules_groupVisibility(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	setRule(t, h, "acme", "", models.RuleDeny) // every write tool, on the private group
	acme, err := h.Env.Store.Groups.FindGroupByFullPath(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	item := func(group any) map[string]any {
		return map[string]any{"group_id": group, "title": "Plan", "type_name": "Issue"}
	}
	for _, user := range []string{"carol", "bob"} {
		h.toolsSameAsMissing(t, ce, user, "save_work_item", item("acme"), item("acme-nope"))
		h.toolsSameAsMissing(t, ce, user, "save_work_item", item(acme.ID), item(999999))
		text := h.toolsFail(t, ce, user, "save_work_item", item("acme"))
		if text != "404 Group Not Found" {
			t.Errorf("%s: %q, want the answer for a missing group, not the hidden group's rule", user, text)
		}
	}
	// alice is a member: the rule is hers to see and it applies, on the
	// group and on its projects.
	for _, args := range []map[string]any{item("acme"), {"id": "acme/secret-plans", "title": "Plan"}} {
		tool := "save_work_item"
		if _, ok := args["id"]; ok {
			tool = "create_issue"
		}
		text := h.toolsFail(t, ce, "alice", tool, args)
		if !strings.Contains(text, `the "deny" rule for every write tool on acme`) {
			t.Errorf("alice, %s %v: %q, want the deny rule named", tool, args, text)
		}
	}
}
