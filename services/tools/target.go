package tools

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// Target is what a tool's arguments name and what the call needs on it: a
// Definition that declares one is resolved once by the tool service,
// before the tool rules and the tool, and the same resolution serves both
// (the rules govern the target's project or group; the tool gets the
// object on Call.Target). The tool package that declares it resolves it
// (Resolver), since the lookup rules are its own.
type Target struct {
	// Kind is the kind of object (TargetWorkItem, …); the arguments that
	// name an object of a kind are the tool package's convention for it
	// (a work item: url, or project_id or group_id with work_item_iid).
	Kind TargetKind
	// Ability is what the call needs on the object (services/access),
	// checked by the resolver once the object is found.
	Ability access.Ability
	// Resolver finds the object; required.
	Resolver Resolver
}

// The kinds a Target names beside the WriteTarget kinds it shares
// (TargetProject: the project one argument names, by id or full path,
// which argument being the resolver's to know, Object the *models.Project;
// TargetVulnerability: the vulnerability vulnerability_id names, Project
// set only when the caller may read it, Object the *models.Vulnerability).
// For each, ResolvedTarget.Project and Level are the object's project and
// the caller's role there.
const (
	// TargetWorkItem is a work item (an issue of a project); Object is
	// the *models.Issue.
	TargetWorkItem TargetKind = "work_item"
	// TargetMergeRequest is a merge request the caller may read (its
	// project's code: Reporter in a private project); Object is the
	// *models.MergeRequest.
	TargetMergeRequest TargetKind = "merge_request"
)

// Resolver resolves a Definition's Target for one call.
type Resolver interface {
	// ResolveTarget finds the object t names in call's arguments for u
	// and checks t.Ability. It reads the arguments with Args, as the
	// tool's run does (the same type: one decode per call). Whatever the
	// caller can act on (missing, hidden, forbidden, an argument naming
	// nothing) is ResolvedTarget.Err; the error is a server failure only.
	ResolveTarget(ctx context.Context, u *models.User, t *Target, call *Call) (*ResolvedTarget, error)
}

// ResolvedTarget is a Target as one call resolved it.
type ResolvedTarget struct {
	// Project (with the caller's role, Level) or Group is where the
	// object lives, when the caller can see it, even when the object
	// itself is missing or forbidden: the tool rules apply there. Both
	// nil: the arguments name no place the caller can see (the rules
	// read as none, as for a missing one).
	Project *models.Project
	Level   models.AccessLevel
	Group   *models.Group
	// Object is the resolved object (by Kind), nil when Err is set.
	Object any
	// Err is why there is no object, with the tool's own text (not found,
	// forbidden, invalid). The tool returns it where its argument checks
	// end, so which of several faults a call reports stays the tool's.
	Err error
}

// rulePlace is the project or group of r the tool rules read, if any.
func (r *ResolvedTarget) rulePlace() (Place, bool) {
	switch {
	case r == nil:
	case r.Project != nil:
		return Place{r.Project.ID, r.Project.NamespaceID, r.Project.PathWithNamespace}, true
	case r.Group != nil:
		return Place{0, r.Group.ID, r.Group.FullPath}, true
	}
	return Place{}, false
}

// resolveTarget resolves e's Target for call once (a no-op when e declares
// none, or when call was resolved already).
func (e *Entry) resolveTarget(ctx context.Context, call *Call) error {
	if e.Def == nil || e.Def.Target == nil || call.Target != nil {
		return nil
	}
	var u *models.User
	if call.Identity != nil {
		u = call.Identity.User
	}
	if u == nil {
		return nil // the tool refuses a call without a user itself
	}
	r, err := e.Def.Target.Resolver.ResolveTarget(ctx, u, e.Def.Target, call)
	if err != nil {
		return err
	}
	call.Target = r
	return nil
}

// checkTarget refuses a Target the service could not resolve (no kind,
// ability or resolver), or one beside a single-target WriteTarget
// argument, which the rules would no longer read.
func checkTarget(d *Definition) error {
	t := d.Target
	if t == nil {
		return nil
	}
	if t.Kind == "" || t.Ability == "" || t.Resolver == nil {
		return fmt.Errorf("tool %q: target needs a kind, an ability and a resolver", d.Name)
	}
	for _, w := range d.WriteTarget {
		if !w.Kind.list() {
			return fmt.Errorf("tool %q: write target %q: with a Target, only list kinds add targets", d.Name, w.Name)
		}
	}
	return nil
}
