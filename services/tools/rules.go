package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// RuleStore is what tool rules need from the store.
type RuleStore interface {
	FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error)
	FindProjectWithRoleByPath(ctx context.Context, path string, userID int64) (*models.Project, models.AccessLevel, error)
	FindGroupByID(ctx context.Context, id int64) (*models.Group, error)
	FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error)
	// HasMembershipInGroup reports whether userID is a member of the group
	// at fullPath, of a group above or below it, or of a project in it.
	HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error)
	// ToolRulesFor returns the rules for tool that apply in the project
	// (0: none) inside the group (0: none), nearest first.
	ToolRulesFor(ctx context.Context, projectID, groupID int64, tool string) ([]models.ToolRule, error)
	// FindIssueByID returns work item id (no people loaded) and
	// LoadIssue one with its author and assignees, or models.ErrNotFound
	// (a TargetWorkItems write target).
	FindIssueByID(ctx context.Context, id int64) (*models.Issue, error)
	LoadIssue(ctx context.Context, projectID, iid int64) (*models.Issue, error)
	// VulnerabilityProjectID returns the project of vulnerability id, or
	// models.ErrNotFound (a TargetVulnerability write target).
	VulnerabilityProjectID(ctx context.Context, id int64) (int64, error)
	// UseApproval records an answered approval; a nonce already recorded
	// is models.ErrConflict.
	UseApproval(ctx context.Context, a *models.UsedApproval) error
}

// approvalKey is the inputResponses key of an Ask rule's elicitation, and
// approvalPrefix marks the requestState it seals.
const (
	approvalKey    = "approval"
	approvalPrefix = "glmcp-approval:"
)

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

// ruleTarget is a project or group a call writes to, which the caller
// can see.
type ruleTarget struct {
	projectID, groupID int64
	path               string
}

// decideRule finds the rule for a call of the write tool e: for each
// target the arguments name, the nearest rule on its project or group or a
// group above it, else the instance default; with several targets
// (Definition.WriteTarget of a list kind: link_work_items' linked work
// items), the strictest of those rules (Deny, then Ask, then Allow; among
// equals the first target's).
//
// Visibility (doc/auth.md, "Rules and visibility"): a project or group
// the call names must be one the caller can see, or its rules read as none
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
func (s *Service) decideRule(ctx context.Context, sc models.Scope, e *Entry, args json.RawMessage, resolved *ResolvedTarget) (ruleDecision, error) {
	d := ruleDecision{rule: s.opts.DefaultWriteRule}
	if d.rule == "" {
		d.rule = models.RuleAllow
	}
	u := sc.Identity.User
	var declared []TargetArg
	if e.Def != nil {
		declared = e.Def.WriteTarget
	}
	var targets []ruleTarget
	if e.Def != nil && e.Def.Target != nil {
		if t, ok := resolved.rulePlace(); ok {
			targets = append(targets, t)
		}
	} else {
		kind, ref := callTarget(args, declared)
		t, ok, err := s.resolveTarget(ctx, u, kind, ref)
		if err != nil {
			return d, err
		}
		if ok {
			targets = append(targets, t)
		}
	}
	for _, lt := range listTargets(args, declared) {
		t, ok, err := s.resolveTarget(ctx, u, lt.kind, lt.ref)
		if err != nil {
			return d, err
		}
		if ok && !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	var (
		best  ruleDecision
		found bool
		paths []string
	)
	for _, t := range targets {
		if !slices.Contains(paths, t.path) {
			paths = append(paths, t.path)
		}
		td := ruleDecision{rule: d.rule}
		rules, err := s.opts.Rules.ToolRulesFor(ctx, t.projectID, t.groupID, e.Tool.Name)
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

// resolveTarget finds the project or group a target argument of kind names
// by ref; ok is false when there is none the caller can see.
func (s *Service) resolveTarget(ctx context.Context, u *models.User, kind TargetKind, ref string) (t ruleTarget, ok bool, err error) {
	switch kind {
	case TargetProject:
		p, level, err := s.findProject(ctx, ref, u.ID)
		if err != nil || p == nil || !access.CanReadProject(u, p, level) {
			return t, false, err
		}
		return ruleTarget{p.ID, p.NamespaceID, p.PathWithNamespace}, true, nil
	case TargetVulnerability:
		// The vulnerability's project, when the caller can see the
		// vulnerability (Developer or above): a caller who cannot gets the
		// tool's not found, as for a missing one, never a rule of its
		// project.
		p, level, err := s.findVulnerabilityProject(ctx, ref, u.ID)
		if err != nil || p == nil || !access.CanReadVulnerability(u, p, level) {
			return t, false, err
		}
		return ruleTarget{p.ID, p.NamespaceID, p.PathWithNamespace}, true, nil
	case TargetWorkItems:
		// One work item of the list: its project, when the caller can
		// read the work item (as link_work_items checks its targets), so
		// a hidden or confidential one never shows a rule of its project.
		p, err := s.findWorkItemProject(ctx, ref, u)
		if err != nil || p == nil {
			return t, false, err
		}
		return ruleTarget{p.ID, p.NamespaceID, p.PathWithNamespace}, true, nil
	case TargetProjects, TargetGroups:
		// One global id of the list: the project or group, found as a
		// plain id of the single kind is.
		typ, single := "Project", TargetProject
		if kind == TargetGroups {
			typ, single = "Group", TargetGroup
		}
		num, ok := strings.CutPrefix(ref, "gid://gitlab/"+typ+"/")
		if !ok || num == "" || strings.TrimLeft(num, "0123456789") != "" {
			return t, false, nil
		}
		return s.resolveTarget(ctx, u, single, num)
	case TargetGroup:
		g, err := s.findGroup(ctx, ref)
		if err != nil || g == nil {
			return t, false, err
		}
		member := false
		if access.GroupNeedsMembership(u, g) {
			if member, err = s.opts.Rules.HasMembershipInGroup(ctx, g.FullPath, u.ID); err != nil {
				return t, false, err
			}
		}
		if !access.CanReadGroup(u, g, member) {
			return t, false, nil
		}
		return ruleTarget{0, g.ID, g.FullPath}, true, nil
	}
	return t, false, nil
}

// findWorkItemProject returns the project of the work item ref names by
// its global id (gid://gitlab/WorkItem/<id>) when u may read the work
// item, else nil. A plain number is an iid of the source work item's
// project or group (as link_work_items resolves it), so it adds no target
// beyond the source's: nil.
func (s *Service) findWorkItemProject(ctx context.Context, ref string, u *models.User) (*models.Project, error) {
	num, ok := strings.CutPrefix(ref, "gid://gitlab/WorkItem/")
	if !ok {
		return nil, nil
	}
	id, err := strconv.ParseInt(num, 10, 64)
	if err != nil || id <= 0 || strings.TrimLeft(num, "0123456789") != "" {
		return nil, nil
	}
	i, err := s.opts.Rules.FindIssueByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, level, err := s.findProject(ctx, strconv.FormatInt(i.ProjectID, 10), u.ID)
	if err != nil || p == nil || !access.CanReadProject(u, p, level) {
		return nil, err
	}
	if i.Confidential {
		// Whether u may read a confidential one depends on its people.
		if i, err = s.opts.Rules.LoadIssue(ctx, i.ProjectID, i.IID); errors.Is(err, models.ErrNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}
	if !access.CanReadIssue(u, p, i, level) {
		return nil, nil
	}
	return p, nil
}

func (s *Service) findProject(ctx context.Context, ref string, userID int64) (*models.Project, models.AccessLevel, error) {
	var (
		p     *models.Project
		level models.AccessLevel
		err   error
	)
	if !validRef(ref) {
		return nil, models.NoAccess, nil
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		p, level, err = s.opts.Rules.FindProjectWithRoleByID(ctx, id, userID)
	} else {
		p, level, err = s.opts.Rules.FindProjectWithRoleByPath(ctx, ref, userID)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.NoAccess, nil
	}
	return p, level, err
}

// findVulnerabilityProject returns the project of the vulnerability ref
// names (an id or its global id), or nil when there is none.
func (s *Service) findVulnerabilityProject(ctx context.Context, ref string, userID int64) (*models.Project, models.AccessLevel, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(ref, "gid://gitlab/Vulnerability/"), 10, 64)
	if err != nil || id <= 0 {
		return nil, models.NoAccess, nil
	}
	projectID, err := s.opts.Rules.VulnerabilityProjectID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.NoAccess, nil
	}
	if err != nil {
		return nil, models.NoAccess, err
	}
	return s.findProject(ctx, strconv.FormatInt(projectID, 10), userID)
}

func (s *Service) findGroup(ctx context.Context, ref string) (*models.Group, error) {
	var (
		g   *models.Group
		err error
	)
	if !validRef(ref) {
		return nil, nil
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		g, err = s.opts.Rules.FindGroupByID(ctx, id)
	} else {
		g, err = s.opts.Rules.FindGroupByFullPath(ctx, ref)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	return g, err
}

// validRef reports whether ref can name a project or group at all: a
// percent-decoded reference ("%00") may hold text no path can.
func validRef(ref string) bool {
	return utf8.ValidString(ref) && !strings.ContainsRune(ref, 0)
}

// callTarget reads which project or group a call writes to. A tool that
// declares its target arguments (Definition.WriteTarget) is read from
// those only: the first present names the target, and none present names
// none (the tool refuses such a call itself). Any other tool is read from
// GitLab's argument names: id or project_id (a project), group_id (a
// group), url (a GitLab URL of a project's or group's object), full_path
// (a project). A reference is an id or a path.
func callTarget(args json.RawMessage, declared []TargetArg) (kind TargetKind, ref string) {
	var a map[string]json.RawMessage
	if json.Unmarshal(args, &a) != nil {
		return "", ""
	}
	str := func(k string) string {
		v := bytes.TrimSpace(a[k])
		var s string
		if json.Unmarshal(v, &s) == nil {
			s, _ = url.PathUnescape(strings.TrimSpace(s))
			return strings.Trim(s, "/")
		}
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n > 0 {
			return strconv.FormatInt(n, 10)
		}
		return ""
	}
	if len(declared) > 0 {
		for _, t := range declared {
			if t.Kind.list() {
				continue
			}
			r := str(t.Name)
			if r == "" {
				continue
			}
			if t.Kind != TargetURL {
				return t.Kind, r
			}
			if k, ref := urlTarget(r); k != "" {
				return k, ref
			}
		}
		return "", ""
	}
	for _, k := range []string{"id", "project_id"} {
		if r := str(k); r != "" {
			return TargetProject, r
		}
	}
	if r := str("group_id"); r != "" {
		return TargetGroup, r
	}
	if raw := str("url"); raw != "" {
		if k, ref := urlTarget(raw); k != "" {
			return k, ref
		}
	}
	if r := str("full_path"); r != "" {
		return TargetProject, r
	}
	return "", ""
}

// urlTarget reads the project or group of a GitLab URL of one of its
// objects (https://host/group/project/-/issues/1,
// https://host/groups/group/-/epics/2).
func urlTarget(raw string) (TargetKind, string) {
	if u, err := url.Parse(raw); err == nil {
		path, _, found := strings.Cut(strings.Trim(u.Path, "/"), "/-/")
		if g, ok := strings.CutPrefix(path, "groups/"); ok && found {
			return TargetGroup, g
		}
		if found && path != "" {
			return TargetProject, path
		}
	}
	return "", ""
}

// listRef is one element of a write target argument of a list kind.
type listRef struct {
	kind TargetKind
	ref  string
}

// listTargets reads the declared arguments of a list kind: each element
// (a string or a positive integer; the argument may also be one value) is
// one more target, in argument order.
func listTargets(args json.RawMessage, declared []TargetArg) []listRef {
	var out []listRef
	var a map[string]json.RawMessage
	for _, t := range declared {
		if !t.Kind.list() {
			continue
		}
		if a == nil && json.Unmarshal(args, &a) != nil {
			return nil
		}
		v := bytes.TrimSpace(a[t.Name])
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			elems = []json.RawMessage{v}
		}
		for _, el := range elems {
			var s string
			if json.Unmarshal(el, &s) == nil {
				s = strings.TrimSpace(s)
			} else if n, err := strconv.ParseInt(string(bytes.TrimSpace(el)), 10, 64); err == nil && n > 0 {
				s = strconv.FormatInt(n, 10)
			}
			if s != "" && validRef(s) {
				out = append(out, listRef{t.Kind, s})
			}
		}
	}
	return out
}

// checkWriteTarget refuses a definition whose WriteTarget names an
// argument its input schema does not have, or a kind it does not know:
// rules would silently read no target.
func checkWriteTarget(d *Definition) error {
	if len(d.WriteTarget) == 0 {
		return nil
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(d.InputSchema, &schema)
	for _, t := range d.WriteTarget {
		if _, ok := schema.Properties[t.Name]; !ok {
			return fmt.Errorf("tool %q: write target %q is not an argument", d.Name, t.Name)
		}
		switch t.Kind {
		case TargetProject, TargetGroup, TargetVulnerability, TargetURL, TargetWorkItems, TargetProjects, TargetGroups:
		default:
			return fmt.Errorf("tool %q: write target %q: kind %q is not project, group, vulnerability, url, work_items, projects or groups", d.Name, t.Name, t.Kind)
		}
	}
	return nil
}

// applyRule enforces d on a call of the write tool e. It returns a result
// to send instead of running the tool (deny, a question, a refusal, a
// decline), or nil to run it.
func (s *Service) applyRule(ctx context.Context, req *CallRequest, e *Entry, d ruleDecision) (*Result, error) {
	switch d.rule {
	case models.RuleAllow:
		return nil, nil
	case models.RuleDeny:
		return &Result{IsError: true, Refused: true, ErrorClass: "rule_denied", Text: fmt.Sprintf("The tool %s is not allowed here: %s forbids it. "+
			"An administrator can change the rule with `glmcp tool-rules set`.", e.Tool.Name, d.describe())}, nil
	}
	// Ask.
	if req.RequestState != nil {
		return s.answerApproval(ctx, req, e, d)
	}
	if req.Capabilities == nil || !Declares(req.Capabilities, "elicitation") {
		why := "this request is in a protocol revision without multi round-trip requests (2025-11-25 or older)"
		if req.Capabilities != nil {
			why = "the client did not declare the elicitation capability"
		}
		return &Result{IsError: true, Refused: true, ErrorClass: "approval_unavailable", Text: fmt.Sprintf("The tool %s needs a person's approval before it writes (%s), "+
			"and it cannot be asked for: %s. Nothing was written. Use a client that supports elicitation with protocol "+
			"revision 2026-07-28, or ask an administrator to allow the tool (`glmcp tool-rules set --rule allow`).",
			e.Tool.Name, d.describe(), why)}, nil
	}
	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("approval nonce: %w", err)
	}
	return &Result{
		InputRequests: map[string]InputRequest{approvalKey: ElicitInput(approvalMessage(e.Tool.Name, d, req.Arguments),
			json.RawMessage(`{"type":"object","properties":{}}`))},
		RequestState: approvalPrefix + base64.RawURLEncoding.EncodeToString(nonce),
	}, nil
}

// answerApproval handles the retry of an Ask: the sealed state (already
// opened: user, tool, arguments and expiry checked) is used once, then
// accept runs the tool and decline or cancel writes nothing.
func (s *Service) answerApproval(ctx context.Context, req *CallRequest, e *Entry, d ruleDecision) (*Result, error) {
	state, err := s.states.open(*req.RequestState, userOf(req.Scope), e.Tool.Name, req.Arguments)
	nonce, isApproval := strings.CutPrefix(state, approvalPrefix)
	if err != nil || !isApproval {
		return nil, fmt.Errorf("requestState failed verification: it was altered, has expired, or was issued for another user, tool or arguments: %w", models.ErrInvalidInput)
	}
	var answer struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(req.InputResponses[approvalKey], &answer) != nil ||
		(answer.Action != "accept" && answer.Action != "decline" && answer.Action != "cancel") {
		return nil, fmt.Errorf("inputResponses.%s: want the elicitation result (action accept, decline or cancel): %w", approvalKey, models.ErrInvalidInput)
	}
	err = s.opts.Rules.UseApproval(ctx, &models.UsedApproval{Nonce: nonce, UserID: userOf(req.Scope), Tool: e.Tool.Name, Action: answer.Action})
	if errors.Is(err, models.ErrConflict) {
		return nil, fmt.Errorf("requestState was already used: an approval answers one call; call the tool again to be asked again: %w", models.ErrInvalidInput)
	}
	if err != nil {
		return nil, err
	}
	if answer.Action != "accept" {
		return &Result{IsError: true, Refused: true, ErrorClass: "approval_declined", Text: fmt.Sprintf("The write was not approved (%s): %s did nothing.", answer.Action, e.Tool.Name)}, nil
	}
	// Approved: the tool runs without the approval's state and answers.
	req.RequestState, req.InputResponses = nil, nil
	return nil, nil
}

// approvalMessage shows the person exactly what will be written.
func approvalMessage(tool string, d ruleDecision, args json.RawMessage) string {
	var b strings.Builder
	target := d.target
	if target == "" {
		target = "(no project or group named)"
	}
	fmt.Fprintf(&b, "Approve a write by %s on %s? (%s asks for approval.)\n", tool, target, d.describe())
	var a map[string]json.RawMessage
	_ = json.Unmarshal(args, &a)
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := string(bytes.TrimSpace(a[k]))
		var s string
		if json.Unmarshal(a[k], &s) == nil {
			v = s
		}
		if utf8.RuneCountInString(v) > 500 {
			v = string([]rune(v)[:500]) + "…"
		}
		fmt.Fprintf(&b, "\n%s: %s", k, v)
	}
	return b.String()
}
