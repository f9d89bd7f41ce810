package gitlab

import (
	"context"
	"errors"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// saveMergeRequest is GitLab 19.5's save_merge_request: create (no
// merge_request_iid) or update a merge request, REST-backed.
func saveMergeRequest(g *gitlab) tools.Definition {
	git := mrGitOf(g)
	t := saveMRTool{inTx: g.inTx, git: git, writer: mrWriter{inTx: g.inTx, links: g.links, git: git}}
	if !noStore(g.store) {
		t.store = &saveMRStore{g.store.Issues, g.store.Users}
	}
	usernames := func(d string) obj {
		return withDesc(obj{"type": "array", "items": obj{"type": "string", "minLength": 1, "maxLength": 255}, "maxItems": 100}, d)
	}
	names := func(d string) obj {
		return withDesc(obj{"type": "array", "items": obj{"type": "string", "minLength": 1, "maxLength": maxTitleLength}, "maxItems": 50}, d)
	}
	return tools.Definition{
		Name:  "save_merge_request",
		Title: "Save merge request",
		Description: "Create or update a merge request in a GitLab project. The presence of merge_request_iid selects " +
			"the operation: omit it to create a merge request (title, source_branch and target_branch required), or " +
			"provide it to update an existing one. Send only the fields you intend to set.",
		InputSchema: argsSchema(t.run, obj{
			"project_id":           projectRefProp("ID or full path of the project."),
			"merge_request_iid":    iidProp("Internal ID of the merge request. Provide to update an existing merge request; omit to create one."),
			"title":                strProp("Title of the merge request. Required when creating.", 1, maxTitleLength),
			"source_branch":        strProp("Name of the source branch. Required when creating.", 1, 255),
			"target_branch":        strProp("Name of the target branch. Required when creating.", 1, 255),
			"target_project_id":    iidProp("ID of the target project. Applies when creating; only the project itself is supported (no forks)."),
			"description":          strProp("Description of the merge request.", 0, maxDescriptionLength),
			"labels":               names("Label names. Replaces all existing labels. Pass an empty array to remove all labels."),
			"add_labels":           names("Label names to add. Applies when updating."),
			"remove_labels":        names("Label names to remove. Applies when updating."),
			"assignees":            usernames("Usernames to assign. Alternative to assignee_ids; provide one. Pass an empty array to remove all assignees."),
			"assignee_ids":         idListProp("User IDs to assign. Alternative to assignees; provide one. Pass an empty array to remove all assignees."),
			"reviewers":            usernames("Usernames to request review from. Alternative to reviewer_ids; provide one. Pass an empty array to remove all reviewers."),
			"reviewer_ids":         idListProp("User IDs to request review from. Alternative to reviewers; provide one. Pass an empty array to remove all reviewers."),
			"milestone_id":         withDesc(obj{"type": "integer", "minimum": 0}, "ID of the milestone; 0 removes the milestone."),
			"milestone":            strProp("Title of a project milestone to assign. Mutually exclusive with milestone_id.", 1, maxTitleLength),
			"remove_source_branch": boolProp("Remove the source branch when the merge request is merged."),
			"squash":               boolProp("Squash commits into a single commit when merging."),
			"state_event":          enumProp("State transition to perform. Applies when updating.", "close", "reopen"),
			"discussion_locked":    boolProp("Lock the merge request discussion. Applies when updating."),
			"allow_collaboration":  boolProp("Allow commits from members who can merge to the target branch. Applies when updating."),
		}, "project_id"),
		Annotations: writeTool("Save merge request"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/merge_requests/save_merge_request_service.rb",
		Aliases:     []string{"update_merge_request", "create_merge_request"},
		// The project, looked up once: the tool rules and the tool read it.
		Target: g.projectTarget("project_id", access.ReadProject, nil),
		Run:    tools.Typed(t.run),
	}
}

// saveMRStore is what save_merge_request reads outside its transaction:
// the users and milestones its arguments name.
type saveMRStore struct {
	milestoneStore
	userByUsername
}

// saveMRWriteStore is what an update reads and writes in its
// transaction: the members and labels it checks (their families), the
// merge request, and what its view shows.
type saveMRWriteStore struct {
	userByID
	memberRoles
	mrResultIssues
	saveMRMRs
}

// saveMRMRs is what save_merge_request reads and writes of MergeRequests.
type saveMRMRs interface {
	mrLoader
	UpdateMergeRequest(ctx context.Context, projectID, iid int64, u models.MergeRequestUpdate) (*models.MergeRequest, error)
	LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error)
}

// saveMRTool is save_merge_request with what it needs: the store, its
// transactions, git, and the writer that opens merge requests and
// renders the answer.
type saveMRTool struct {
	store  *saveMRStore // nil: no store (a catalog built without one)
	inTx   InTx
	git    mrGit
	writer mrWriter
}

type saveMRArgs struct {
	ProjectID          refArg    `json:"project_id"`
	MergeRequestIID    intArg    `json:"merge_request_iid"`
	Title              *string   `json:"title"`
	SourceBranch       *string   `json:"source_branch"`
	TargetBranch       *string   `json:"target_branch"`
	TargetProjectID    *intArg   `json:"target_project_id"`
	Description        *string   `json:"description"`
	Labels             *[]string `json:"labels"`
	AddLabels          []string  `json:"add_labels"`
	RemoveLabels       []string  `json:"remove_labels"`
	Assignees          *[]string `json:"assignees"`
	AssigneeIDs        *[]intArg `json:"assignee_ids"`
	Reviewers          *[]string `json:"reviewers"`
	ReviewerIDs        *[]intArg `json:"reviewer_ids"`
	MilestoneID        *intArg   `json:"milestone_id"`
	Milestone          *string   `json:"milestone"`
	RemoveSourceBranch *bool     `json:"remove_source_branch"`
	Squash             *bool     `json:"squash"`
	StateEvent         string    `json:"state_event"`
	DiscussionLocked   *bool     `json:"discussion_locked"`
	AllowCollaboration *bool     `json:"allow_collaboration"`
}

func (t saveMRTool) run(ctx context.Context, call *tools.Call, args saveMRArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	switch {
	case args.Assignees != nil && args.AssigneeIDs != nil:
		return nil, invalidf("provide one of assignees or assignee_ids, not both")
	case args.Reviewers != nil && args.ReviewerIDs != nil:
		return nil, invalidf("provide one of reviewers or reviewer_ids, not both")
	case args.Milestone != nil && args.MilestoneID != nil:
		return nil, invalidf("milestone and milestone_id are mutually exclusive")
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	if args.MergeRequestIID == 0 {
		return t.create(ctx, u, pa, args)
	}
	return t.update(ctx, u, pa, args)
}

func (t saveMRTool) create(ctx context.Context, u *models.User, pa *projectAccess, args saveMRArgs) (*tools.Result, error) {
	for name, set := range map[string]bool{"add_labels": args.AddLabels != nil, "remove_labels": args.RemoveLabels != nil,
		"state_event": args.StateEvent != "", "discussion_locked": args.DiscussionLocked != nil,
		"allow_collaboration": args.AllowCollaboration != nil} {
		if set {
			return nil, invalidf("%s applies only when updating (with merge_request_iid)", name)
		}
	}
	if args.Title == nil || args.SourceBranch == nil || args.TargetBranch == nil {
		return nil, invalidf("title, source_branch and target_branch are required to create a merge request")
	}
	spec := newMRSpec{Title: *args.Title, SourceBranch: *args.SourceBranch, TargetBranch: *args.TargetBranch,
		TargetProjectID: args.TargetProjectID, Squash: deref(args.Squash), RemoveSourceBranch: deref(args.RemoveSourceBranch)}
	if args.Description != nil {
		spec.Description = *args.Description
	}
	if args.Labels != nil {
		spec.Labels = *args.Labels
	}
	var err error
	if spec.AssigneeIDs, err = t.userIDArgs(ctx, "assignees", args.Assignees, args.AssigneeIDs); err != nil {
		return nil, err
	}
	if spec.ReviewerIDs, err = t.userIDArgs(ctx, "reviewers", args.Reviewers, args.ReviewerIDs); err != nil {
		return nil, err
	}
	if spec.MilestoneID, err = milestoneArg(ctx, t.store, pa.project, args.Milestone, args.MilestoneID); err != nil {
		return nil, err
	}
	return t.writer.open(ctx, u, pa, spec)
}

func (t saveMRTool) update(ctx context.Context, u *models.User, pa *projectAccess, args saveMRArgs) (*tools.Result, error) {
	switch {
	case args.SourceBranch != nil:
		return nil, invalidf("source_branch cannot be changed; it applies only when creating")
	case args.TargetProjectID != nil:
		return nil, invalidf("target_project_id applies only when creating")
	case args.Labels != nil && (args.AddLabels != nil || args.RemoveLabels != nil):
		return nil, invalidf("provide labels, or add_labels/remove_labels, not both")
	}
	if !access.CanReadCode(u, pa.project, pa.level) {
		return nil, notFound("Merge Request")
	}
	iid := int64(args.MergeRequestIID)
	var res *tools.Result
	err := t.inTx(ctx, func(tx Families) error {
		st := saveMRWriteStore{tx.Users, tx.Groups, tx.Issues, tx.MergeRequests}
		mr, err := st.LoadMergeRequest(ctx, pa.project.ID, iid)
		if errors.Is(err, models.ErrNotFound) {
			return notFound("Merge Request")
		}
		if err != nil {
			return err
		}
		if !access.CanUpdateMergeRequest(u, pa.project, mr, pa.level) {
			return forbiddenf("you need at least the Developer role in project %s, or to be the author, to update merge request !%d", pa.project.PathWithNamespace, iid)
		}
		if verb, ok := map[string]string{"close": "closed", "reopen": "reopened"}[args.StateEvent]; ok && mr.State == models.MergeRequestMerged {
			// The store refuses it too, in words naming internal ids.
			return invalidf("state_event: merge request !%d is merged, and a merged merge request cannot be %s", iid, verb)
		}
		upd := models.MergeRequestUpdate{Description: args.Description, StateEvent: args.StateEvent,
			Squash: args.Squash, RemoveSourceBranch: args.RemoveSourceBranch, DiscussionLocked: args.DiscussionLocked,
			AllowCollaboration: args.AllowCollaboration, AddLabels: trimAll(args.AddLabels), RemoveLabels: trimAll(args.RemoveLabels)}
		if args.Title != nil {
			title, err := checkTitle(*args.Title)
			if err != nil {
				return err
			}
			upd.Title = &title
			d := isDraftTitle(title)
			upd.Draft = &d
		}
		if args.TargetBranch != nil {
			target := strings.TrimSpace(*args.TargetBranch)
			if target == mr.SourceBranch { // create's words; the store's name internal ids
				return invalidf("source_branch and target_branch must be different (both are %q)", target)
			}
			if err := t.git.checkBranches(ctx, pa.project, [2]string{"target_branch", target}); err != nil {
				return err
			}
			upd.TargetBranch = &target
		}
		if args.StateEvent == "close" && mr.State == models.MergeRequestOpened {
			// A closed merge request keeps the diff it had: record its refs.
			if cmp, err := t.git.compare(ctx, pa.project, mr, repository.CompareOptions{SkipDiffs: true, MaxCommits: 1}); err == nil {
				upd.HeadSHA, upd.DiffBaseSHA = &cmp.HeadSHA, &cmp.MergeBaseSHA
			}
		}
		if args.Labels != nil {
			upd.Labels = trimAll(*args.Labels)
			if upd.Labels == nil {
				upd.Labels = []string{}
			}
		}
		if err := ensureLabels(ctx, st, pa.project.ID, append(append([]string{}, upd.Labels...), upd.AddLabels...)); err != nil {
			return err
		}
		for _, f := range []struct {
			field string
			names *[]string
			ids   *[]intArg
			dst   *[]int64
		}{{"assignees", args.Assignees, args.AssigneeIDs, &upd.AssigneeIDs}, {"reviewers", args.Reviewers, args.ReviewerIDs, &upd.ReviewerIDs}} {
			ids, err := t.userIDArgs(ctx, f.field, f.names, f.ids)
			if err != nil {
				return err
			}
			if ids == nil {
				continue
			}
			users, err := projectUsers(ctx, st, pa.project, f.field, ids)
			if err != nil {
				return err
			}
			*f.dst = []int64{}
			for k := range users {
				*f.dst = append(*f.dst, users[k].ID)
			}
		}
		if args.Milestone != nil || args.MilestoneID != nil {
			mid, err := milestoneArg(ctx, t.store, pa.project, args.Milestone, args.MilestoneID)
			if err != nil {
				return err
			}
			upd.MilestoneID = &mid
		}
		updated, err := st.UpdateMergeRequest(ctx, pa.project.ID, iid, upd)
		if err != nil {
			return err
		}
		res, err = t.writer.result(ctx, st, u, pa, updated)
		return err
	})
	if dup := (*models.OpenMergeRequestExistsError)(nil); errors.As(err, &dup) {
		return nil, conflictf("Another open merge request already exists for this source branch: !%d", dup.IID)
	}
	if errors.Is(err, models.ErrConflict) {
		return nil, conflictf("Another open merge request already exists for this source branch")
	}
	return res, err
}

// userIDArgs turns usernames (or ids) into ids; nil when neither is given.
// Unknown usernames are a validation error.
func (t saveMRTool) userIDArgs(ctx context.Context, field string, names *[]string, ids *[]intArg) ([]intArg, error) {
	if ids != nil {
		out := append([]intArg{}, (*ids)...)
		return out, nil
	}
	if names == nil {
		return nil, nil
	}
	out := []intArg{}
	for _, n := range *names {
		usr, err := t.store.FindUserByUsername(ctx, strings.TrimPrefix(strings.TrimSpace(n), "@"))
		if errors.Is(err, models.ErrNotFound) {
			return nil, invalidf("%s: user %q not found", field, n)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, intArg(usr.ID))
	}
	return out, nil
}

func trimAll(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func deref(b *bool) bool { return b != nil && *b }
