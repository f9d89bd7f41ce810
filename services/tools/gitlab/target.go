package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// target declares that a tool's arguments name an object of kind and that
// the call needs ability on it (tools.Definition.Target): the tool service
// resolves it before the tool rules and the tool. The arguments are read
// as the kind's own struct (workItemArgs, mrArgs; a vulnerability's id
// from the parsed arguments): a tool whose run decodes another struct
// declares its target with workItemTarget instead, so its arguments are
// decoded once.
func (g *gitlab) target(kind tools.TargetKind, ability access.Ability) *tools.Target {
	r := kindResolver{store: g.targets, base: g.base}
	switch kind {
	case tools.TargetWorkItem:
		r.args = func(call *tools.Call) (any, error) { return tools.Args[workItemArgs](call) }
	case tools.TargetMergeRequest:
		r.args = func(call *tools.Call) (any, error) { return tools.Args[mrArgs](call) }
	}
	return &tools.Target{Kind: kind, Ability: ability, Resolver: r}
}

// workItemTarget declares a tools.TargetWorkItem named by the tool's
// arguments A, the struct its run decodes (embedding workItemArgs): the
// resolver and the run share one decode (tools.Args).
func workItemTarget[A namesWorkItem](g *gitlab, ability access.Ability) *tools.Target {
	return &tools.Target{Kind: tools.TargetWorkItem, Ability: ability,
		Resolver: kindResolver{store: g.targets, base: g.base, args: func(call *tools.Call) (any, error) { return tools.Args[A](call) }}}
}

// mrRefTargetOf declares an mrRefTarget named by the tool's arguments A,
// the struct its run decodes (embedding mrRefArgs): the resolver and the
// run share one decode.
func mrRefTargetOf[A namesMRRef](g *gitlab) *tools.Target {
	return &tools.Target{Kind: tools.TargetMergeRequest, Ability: access.ReadMergeRequest, Resolver: mrRefResolver{store: g.targets,
		args: func(call *tools.Call) (mrRefArgs, error) {
			a, err := tools.Args[A](call)
			return a.mrRef(), err
		}}}
}

// namesWorkItem is a tool's arguments that name a work item (they embed
// workItemArgs); namesMergeRequest one that names a merge request by
// project and iid (mrArgs); namesMRRef one that names it by url, or by
// project and iid (mrRefArgs).
type (
	namesWorkItem     interface{ workItemRef() workItemArgs }
	namesMergeRequest interface{ mergeRequestRef() mrArgs }
	namesMRRef        interface{ mrRef() mrRefArgs }
)

func (a workItemArgs) workItemRef() workItemArgs { return a }
func (a mrArgs) mergeRequestRef() mrArgs         { return a }
func (a mrRefArgs) mrRef() mrRefArgs             { return a }

// projectTarget declares that argument arg names a tool's project (by id
// or full path) and that the call needs ability there; refused is the
// tool's answer when the caller lacks it.
func (g *gitlab) projectTarget(arg string, ability access.Ability, refused func(p *models.Project) error) *tools.Target {
	return g.namedProject(ability, argProject(arg), nil, refused)
}

// namedProject declares a tool's project (a tools.Target of kind
// TargetProject) as name reads it from the arguments, and that the call
// needs ability there. missing is the tool's answer for a project that is
// not there or hidden, given the reference name read (nil: resolveProject's
// own); refused its answer when the caller lacks ability (nil: missing's).
func (g *gitlab) namedProject(ability access.Ability, name projectName, missing func(ident string) error, refused func(p *models.Project) error) *tools.Target {
	return &tools.Target{Kind: tools.TargetProject, Ability: ability,
		Resolver: projectResolver{store: g.targets, name: name, missing: missing, refused: refused}}
}

// projectName reads which project a tool's arguments name, as the tool
// reads them (tools.Args of the struct its run decodes, or an argument of
// the parsed arguments): the field resolveProject's texts name and its
// reference, or the tool's own answer to arguments that name none.
type projectName func(call *tools.Call) (field string, ref refArg, err error)

// argProject names the project argument arg gives (absent: resolveProject
// says it is empty).
func argProject(arg string) projectName {
	return func(call *tools.Call) (string, refArg, error) {
		var ref refArg
		return arg, ref, decodeArg(call, arg, &ref)
	}
}

// decodeArg reads argument name of call into dst (a *refArg or a
// *string), when it is there, from the arguments as the tool service
// parsed them once: no decode of its own.
func decodeArg(call *tools.Call, name string, dst any) error {
	v, ok := call.Argument([]string{name})
	if !ok || v == nil {
		return nil
	}
	switch d := dst.(type) {
	case *string:
		if s, ok := v.(string); ok {
			*d = s
			return nil
		}
	case *refArg:
		switch t := v.(type) {
		case string:
			*d = refArg(t)
			return nil
		case json.Number:
			var n intArg
			if err := n.UnmarshalJSON([]byte(t)); err != nil {
				return tools.Errorf("Validation error: %v", err)
			}
			*d = refArg(strconv.FormatInt(int64(n), 10))
			return nil
		}
	}
	return tools.Errorf("Validation error: %s has the wrong type", name)
}

// errProjectInaccessible is the answer of several tools (GitLab's words)
// for a project that is not there or that the caller may not read.
var errProjectInaccessible = &kindError{msg: "Project not found or inaccessible", kind: models.ErrNotFound}

// projectResolver resolves a TargetProject: the project name reads, with
// resolveProject's lookup (see namedProject).
type projectResolver struct {
	store   *targetStore // nil: no store
	name    projectName
	missing func(ident string) error
	refused func(p *models.Project) error
}

func (pr projectResolver) ResolveTarget(ctx context.Context, u *models.User, t *tools.Target, call *tools.Call) (*tools.ResolvedTarget, error) {
	if pr.store == nil {
		return nil, errNoStore
	}
	r := &tools.ResolvedTarget{}
	field, ref, err := pr.name(call)
	var pa *projectAccess
	if err == nil {
		pa, err = resolveProject(ctx, pr.store, u, field, ref)
		if errors.Is(err, models.ErrNotFound) && pr.missing != nil {
			err = pr.missing(string(ref))
		}
	}
	if err != nil {
		return callerFailure(r, err)
	}
	r.Project, r.Level = pa.project, pa.level
	if !access.CanOnProject(t.Ability, u, pa.project, pa.level) {
		switch {
		case pr.refused != nil:
			r.Err = pr.refused(pa.project)
		case pr.missing != nil:
			r.Err = pr.missing(string(ref))
		default:
			r.Err = notFound("Project")
		}
		return r, nil
	}
	r.Object = pa.project
	return r, nil
}

// targetProject returns the project the service resolved for call (its
// Target of kind tools.TargetProject), or the tool-level failure of that
// resolution.
func targetProject(call *tools.Call) (*projectAccess, error) {
	pa, _, err := targetOf[*models.Project](call)
	return pa, err
}

// kindResolver resolves a Target the GitLab tools declare by kind, with
// the lookups the tools used to make themselves, so the texts of not
// found, forbidden and invalid arguments are theirs (tools.Resolver). args
// decodes the tool's arguments (tools.Args of its run's struct).
type kindResolver struct {
	store *targetStore // nil: no store
	base  string       // the public URL (work item links)
	args  func(call *tools.Call) (any, error)
}

func (kr kindResolver) ResolveTarget(ctx context.Context, u *models.User, t *tools.Target, call *tools.Call) (*tools.ResolvedTarget, error) {
	if kr.store == nil {
		return nil, errNoStore
	}
	r := &tools.ResolvedTarget{}
	var (
		pa  *projectAccess
		obj any
		err error
		// allowed checks t.Ability on the object found; refused is the
		// answer when it fails.
		allowed func() bool
		refused func() error
	)
	switch t.Kind {
	case tools.TargetWorkItem:
		var v any
		var issue *models.Issue
		if v, err = kr.args(call); err == nil {
			a := v.(namesWorkItem).workItemRef()
			pa, r.Group, issue, err = findWorkItem(ctx, kr.store, kr.base, u, &a)
		}
		obj = issue
		allowed = func() bool { return access.CanOnWorkItem(t.Ability, u, pa.project, issue, pa.level) }
		refused = func() error { return workItemForbidden(t.Ability, pa.project) }
	case targetIssue:
		var a issueRef
		var found *foundIssue
		if a, err = tools.Args[issueRef](call); err == nil {
			pa, found, err = findIssue(ctx, kr.store, u, &a)
		}
		obj = found
		allowed = func() bool { return access.CanOnWorkItem(t.Ability, u, pa.project, found.issue, pa.level) }
		// An issue the caller may not read is not there.
		refused = func() error { return notFound("Issue") }
	case tools.TargetMergeRequest:
		var v any
		var mr *models.MergeRequest
		if v, err = kr.args(call); err == nil {
			a := v.(namesMergeRequest).mergeRequestRef()
			pa, mr, err = findMergeRequest(ctx, kr.store, u, &a)
		}
		obj = mr
		allowed = func() bool { return access.CanOnMergeRequest(t.Ability, u, pa.project, mr, pa.level) }
		// A merge request the caller may not read is not there.
		refused = func() error { return notFound("Merge Request") }
	case tools.TargetVulnerability:
		var id string
		if err = decodeArg(call, "vulnerability_id", &id); err == nil {
			// pa only when the caller may read the vulnerability: its
			// project's rules are never shown to anyone else.
			pa, obj, err = readableVulnerability(ctx, kr.store, u, id)
		}
		allowed = func() bool { return access.CanOnVulnerability(t.Ability, u, pa.project, pa.level) }
		refused = func() error {
			return forbiddenf("you need at least the Maintainer role in project %s to change vulnerabilities", pa.project.PathWithNamespace)
		}
	default:
		return nil, errors.New("gitlab: no resolver for target kind " + string(t.Kind))
	}
	if pa != nil {
		r.Project, r.Level = pa.project, pa.level
	}
	if err != nil {
		return callerFailure(r, err)
	}
	if !allowed() {
		r.Err = refused()
		return r, nil
	}
	r.Object = obj
	return r, nil
}

// callerFailure records err on r when the caller can act on it (a tool
// error result), else returns it as the server failure it is.
func callerFailure(r *tools.ResolvedTarget, err error) (*tools.ResolvedTarget, error) {
	if _, ok := tools.ErrorResult(err); !ok {
		return nil, err
	}
	r.Err = err
	return r, nil
}

// workItemForbidden is the refusal of ability a on a work item of p, in
// the words each tool used.
func workItemForbidden(a access.Ability, p *models.Project) error {
	switch a {
	case access.LinkWorkItem:
		return forbiddenf("you need at least the Reporter role in project %s to link work items", p.PathWithNamespace)
	}
	return forbiddenf("you may not %s in project %s", a, p.PathWithNamespace)
}

// targetMergeRequest, targetVulnerability and targetWorkItem return the
// object the service resolved for call (its Target of that kind), or the
// tool-level failure of that resolution.
func targetMergeRequest(call *tools.Call) (*projectAccess, *models.MergeRequest, error) {
	return targetOf[*models.MergeRequest](call)
}

func targetVulnerability(call *tools.Call) (*projectAccess, *models.Vulnerability, error) {
	return targetOf[*models.Vulnerability](call)
}

func targetWorkItem(call *tools.Call) (*projectAccess, *models.Issue, error) {
	return targetOf[*models.Issue](call)
}

// targetOf returns call's resolved Target as a T in its project, its
// Err, or a server failure when the Definition declared no Target of
// that kind.
func targetOf[T any](call *tools.Call) (*projectAccess, T, error) {
	var zero T
	r := call.Target
	if r == nil {
		return nil, zero, fmt.Errorf("gitlab: tool %s called without its resolved target", call.Name)
	}
	if r.Err != nil {
		return nil, zero, r.Err
	}
	obj, ok := r.Object.(T)
	if !ok || r.Project == nil {
		return nil, zero, fmt.Errorf("gitlab: tool %s: the resolved target is a %T, not a %T", call.Name, r.Object, zero)
	}
	return &projectAccess{project: r.Project, level: r.Level, lockdown: call.Lockdown}, obj, nil
}

// lookupTarget declares a Target found by the tool's own lookup, find:
// for a write tool whose arguments name its place in more than one way
// (save_note: a merge request or a work item, by url or by ids;
// save_work_item: a project or group to create in, or a work item to
// update). The service runs find once, before the tool rules, which govern
// the project or group find returns (also when the object itself is
// missing or forbidden); the tool reads what find found with lookedUp,
// where its own argument checks end, so its answers are unchanged.
func (g *gitlab) lookupTarget(find lookupFunc) *tools.Target {
	return &tools.Target{Kind: tools.TargetProject, Ability: access.ReadProject, Resolver: lookupResolver{store: g.targets, find: find}}
}

// lookupFunc finds what a call's arguments name for u: the object, the
// project (with u's role) or group it lives in when u can see that place,
// and the tool's answer when there is no object to act on.
// It reads the arguments with tools.Args of the struct the tool's run
// decodes, so they are decoded once.
type lookupFunc func(ctx context.Context, u *models.User, call *tools.Call) (found any, pa *projectAccess, grp *models.Group, err error)

type lookupResolver struct {
	store *targetStore // nil: no store (find reads its own)
	find  lookupFunc
}

func (lr lookupResolver) ResolveTarget(ctx context.Context, u *models.User, _ *tools.Target, call *tools.Call) (*tools.ResolvedTarget, error) {
	if lr.store == nil {
		return nil, errNoStore
	}
	found, pa, grp, err := lr.find(ctx, u, call)
	r := &tools.ResolvedTarget{Group: grp}
	if pa != nil {
		r.Project, r.Level = pa.project, pa.level
	}
	if err != nil {
		return callerFailure(r, err)
	}
	r.Object = found
	return r, nil
}

// lookedUp returns what call's lookupTarget found, or the tool-level
// failure of that lookup.
func lookedUp[T any](call *tools.Call) (T, error) {
	var zero T
	r := call.Target
	if r == nil {
		return zero, fmt.Errorf("gitlab: tool %s called without its resolved target", call.Name)
	}
	if r.Err != nil {
		return zero, r.Err
	}
	found, ok := r.Object.(T)
	if !ok {
		return zero, fmt.Errorf("gitlab: tool %s: the resolved target is a %T, not a %T", call.Name, r.Object, zero)
	}
	return found, nil
}

// targetStore is what the Target resolvers read, built once with the
// registration kit (gitlab.targets): the project or group an argument
// names, the issue view, a merge request and a vulnerability.
type targetStore struct {
	projectLookup
	groupLookup
	targetIssues
	mrLoader
	vulnerabilityLoader
}

// targetIssues is what the resolvers read of Issues: a work item, the
// issue view (findIssue).
type targetIssues interface {
	issueLoader
	FindIssueView(ctx context.Context, projectID int64, path string, iid, userID int64) (v *models.IssueView, ok bool, err error)
	LoadIssueCountingNotes(ctx context.Context, projectID, iid int64, includeInternal bool) (*models.Issue, int64, error)
}

// vulnerabilityLoader loads a vulnerability (Vulnerabilities).
type vulnerabilityLoader interface {
	LoadVulnerability(ctx context.Context, id int64) (*models.Vulnerability, error)
}

// targetStoreOf is f's targetStore, or nil for the zero Families.
func targetStoreOf(f Families) *targetStore {
	return bind(f, func(f Families) targetStore {
		return targetStore{f.Projects, f.Groups, f.Issues, f.MergeRequests, f.Vulnerabilities}
	})
}
