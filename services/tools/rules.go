package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// RuleStore is what tool rules need from the store (where a call writes
// is the tool package's to find: Definition.Places).
type RuleStore interface {
	// ToolRulesFor returns the rules for tool that apply in the project
	// (0: none) inside the group (0: none), nearest first.
	ToolRulesFor(ctx context.Context, projectID, groupID int64, tool string) ([]models.ToolRule, error)
	// UseApproval records an answered approval; a nonce already recorded
	// is models.ErrConflict.
	UseApproval(ctx context.Context, a *models.UsedApproval) error
}

// ruleDecision is the rule that governs one call of a write tool.
type ruleDecision struct {
	rule models.ToolRuleKind
	// where names the rule's project or group ("" for the instance
	// default); tool is "" for a rule on every write tool.
	where, tool string
	// target names the projects or groups the call writes to that the
	// caller can see: one path, or several joined as "a, b and c" (the
	// primary target first, then the others in argument order, each
	// once); "" when the arguments name none the caller can see.
	target string
}

func (d ruleDecision) describe() string {
	what := "every write tool"
	if d.tool != "" {
		what = d.tool
	}
	if d.where == "" {
		return fmt.Sprintf("the instance default (GLMCP_DEFAULT_WRITE_RULE=%s)", d.rule)
	}
	return fmt.Sprintf("the %q rule for %s on %s", d.rule, what, d.where)
}

// strictness orders rules: a call with several targets is governed by the
// strictest of their rules.
func strictness(r models.ToolRuleKind) int {
	switch r {
	case models.RuleDeny:
		return 2
	case models.RuleAsk:
		return 1
	}
	return 0
}

// decideRule finds the rule for a call of the write tool e: for each
// target the arguments name, the nearest rule on its project or group or a
// group above it, else the instance default; with several targets
// (Definition.WriteTarget of a list kind: link_work_items' linked work
// items), the strictest of those rules (Deny, then Ask, then Allow; among
// equals the first target's).
//
// The targets are the Definition's Places' (the tool package reads its
// arguments). Visibility (doc/auth.md, "Rules and visibility"): a project
// or group the call names must be one the caller can see, or its rules
// read as none
// and the instance default applies, as for one that does not exist. That
// is safe: a caller who cannot see a project or group cannot write there
// (the tool answers not found, as it does for a missing one), so a Deny
// loses nothing, while applying it would be the one answer that tells a
// hidden group from a missing one. The groups above a target the caller
// can see are not checked: their rules always apply, whether or not the
// caller can see those groups, so a Deny on a private parent group holds
// for everyone who can write below it.
//
// A tool whose Definition declares a Target is governed where that target
// resolved (resolved's project or group, nil: none), the place the tool
// acts on, not by reading the arguments again.
func (s *Service) decideRule(ctx context.Context, sc models.Scope, e *Entry, call *Call, resolved *ResolvedTarget) (ruleDecision, error) {
	d := ruleDecision{rule: s.opts.DefaultWriteRule}
	if d.rule == "" {
		d.rule = models.RuleAllow
	}
	var targets []Place
	if def := e.Def; def != nil {
		if def.Target != nil {
			if t, ok := resolved.rulePlace(); ok {
				targets = append(targets, t)
			}
		}
		if def.Places != nil {
			places, err := def.Places.WritePlaces(ctx, sc.Identity.User, call, def.WriteTarget, def.Target == nil)
			if err != nil {
				return d, err
			}
			for _, t := range places {
				if !slices.Contains(targets, t) {
					targets = append(targets, t)
				}
			}
		}
	}
	return s.decide(ctx, e, d, targets)
}

// decide is the decision over targets (d: the instance default): the
// strictest of their nearest rules.
func (s *Service) decide(ctx context.Context, e *Entry, d ruleDecision, targets []Place) (ruleDecision, error) {
	var (
		best  ruleDecision
		found bool
		paths []string
	)
	for _, t := range targets {
		if !slices.Contains(paths, t.Path) {
			paths = append(paths, t.Path)
		}
		td := ruleDecision{rule: d.rule}
		rules, err := s.opts.Rules.ToolRulesFor(ctx, t.ProjectID, t.GroupID, e.Tool.Name)
		if err != nil {
			return d, err
		}
		if len(rules) > 0 {
			td.rule, td.where, td.tool = rules[0].Rule, rules[0].Path, rules[0].Tool
		}
		if !found || strictness(td.rule) > strictness(best.rule) {
			best, found = td, true
		}
	}
	if found {
		d = best
	}
	d.target = joinPaths(paths)
	return d, nil
}

// joinPaths lists paths as "a", "a and b", "a, b and c".
func joinPaths(paths []string) string {
	if len(paths) <= 1 {
		return strings.Join(paths, "")
	}
	return strings.Join(paths[:len(paths)-1], ", ") + " and " + paths[len(paths)-1]
}
