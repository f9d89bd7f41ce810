package gitlab

import (
	"context"
	"encoding/json"
	"errors"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// target declares that a tool's arguments name an object of kind and that
// the call needs ability on it (tools.Definition.Target): the tool service
// resolves it through g before the tool rules and the tool.
func (g *gitlab) target(kind tools.TargetKind, ability access.Ability) *tools.Target {
	return &tools.Target{Kind: kind, Ability: ability, Resolver: g}
}

// ResolveTarget resolves a Target the GitLab tools declare, with the
// lookups the tools used to make themselves, so the texts of not found,
// forbidden and invalid arguments are theirs (tools.Resolver).
func (g *gitlab) ResolveTarget(ctx context.Context, u *models.User, t *tools.Target, args json.RawMessage) (*tools.Resolved, error) {
	if g.store == nil {
		return nil, errNoStore
	}
	r := &tools.Resolved{}
	switch t.Kind {
	case tools.TargetWorkItem:
		var a workItemArgs
		if err := tools.DecodeArgs(args, &a); err != nil {
			r.Err = err
			return r, nil
		}
		pa, grp, issue, err := g.findWorkItem(ctx, u, &a)
		if pa != nil {
			r.Project, r.Level = pa.project, pa.level
		}
		r.Group = grp
		if err != nil {
			return callerFailure(r, err)
		}
		if !access.CanOnWorkItem(t.Ability, u, pa.project, issue, pa.level) {
			r.Err = workItemForbidden(t.Ability, pa.project)
			return r, nil
		}
		r.Object = issue
		return r, nil
	case tools.TargetMergeRequest:
		var a mrArgs
		if err := tools.DecodeArgs(args, &a); err != nil {
			r.Err = err
			return r, nil
		}
		pa, mr, err := g.locateMergeRequest(ctx, u, &a)
		if pa != nil {
			r.Project, r.Level = pa.project, pa.level
		}
		if err != nil {
			return callerFailure(r, err)
		}
		if !access.CanOnMergeRequest(t.Ability, u, pa.project, mr, pa.level) {
			r.Err = notFound("Merge Request") // a merge request the caller may not read is not there
			return r, nil
		}
		r.Object = mr
		return r, nil
	case tools.TargetVulnerability:
		var a struct {
			VulnerabilityID string `json:"vulnerability_id"`
		}
		if err := tools.DecodeArgs(args, &a); err != nil {
			r.Err = err
			return r, nil
		}
		pa, v, err := g.readableVulnerability(ctx, g.store, u, a.VulnerabilityID)
		if err != nil {
			return callerFailure(r, err)
		}
		r.Project, r.Level = pa.project, pa.level
		if !access.CanOnVulnerability(t.Ability, u, pa.project, pa.level) {
			r.Err = forbiddenf("you need at least the Maintainer role in project %s to change vulnerabilities", pa.project.PathWithNamespace)
			return r, nil
		}
		r.Object = v
		return r, nil
	}
	return nil, errors.New("gitlab: no resolver for target kind " + string(t.Kind))
}

// callerFailure records err on r when the caller can act on it (a tool
// error result), else returns it as the server failure it is.
func callerFailure(r *tools.Resolved, err error) (*tools.Resolved, error) {
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
	case access.CreateWorkItemNote:
		return forbiddenf("you need at least the Reporter role in project %s to comment on work items", p.PathWithNamespace)
	case access.LinkWorkItem:
		return forbiddenf("you need at least the Reporter role in project %s to link work items", p.PathWithNamespace)
	}
	return forbiddenf("you may not %s in project %s", a, p.PathWithNamespace)
}

// targetMergeRequest returns the merge request the service resolved for
// call (its Target of kind tools.TargetMergeRequest), or the tool-level
// failure of that resolution.
func targetMergeRequest(call *tools.Call) (*projectAccess, *models.MergeRequest, error) {
	r := call.Target
	if r == nil {
		return nil, nil, errors.New("gitlab: merge request tool called without its resolved target")
	}
	if r.Err != nil {
		return nil, nil, r.Err
	}
	mr, ok := r.Object.(*models.MergeRequest)
	if !ok || r.Project == nil {
		return nil, nil, errors.New("gitlab: the resolved target is not a merge request")
	}
	return &projectAccess{project: r.Project, level: r.Level}, mr, nil
}

// targetVulnerability returns the vulnerability the service resolved for
// call (its Target of kind tools.TargetVulnerability), or the tool-level
// failure of that resolution.
func targetVulnerability(call *tools.Call) (*projectAccess, *models.Vulnerability, error) {
	r := call.Target
	if r == nil {
		return nil, nil, errors.New("gitlab: vulnerability tool called without its resolved target")
	}
	if r.Err != nil {
		return nil, nil, r.Err
	}
	v, ok := r.Object.(*models.Vulnerability)
	if !ok || r.Project == nil {
		return nil, nil, errors.New("gitlab: the resolved target is not a vulnerability")
	}
	return &projectAccess{project: r.Project, level: r.Level}, v, nil
}

// targetWorkItem returns the work item the service resolved for call (its
// Target of kind tools.TargetWorkItem), or the tool-level failure of that
// resolution.
func targetWorkItem(call *tools.Call) (*projectAccess, *models.Issue, error) {
	r := call.Target
	if r == nil {
		return nil, nil, errors.New("gitlab: work item tool called without its resolved target")
	}
	if r.Err != nil {
		return nil, nil, r.Err
	}
	issue, ok := r.Object.(*models.Issue)
	if !ok || r.Project == nil {
		return nil, nil, errors.New("gitlab: the resolved target is not a work item")
	}
	return &projectAccess{project: r.Project, level: r.Level}, issue, nil
}
