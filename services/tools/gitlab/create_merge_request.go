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

func init() {
	register((*gitlab).createMergeRequest)
}

// createMergeRequest is GitLab's create_merge_request:
// POST /projects/:id/merge_requests.
func (g *gitlab) createMergeRequest() tools.Definition {
	return tools.Definition{
		Name:  "create_merge_request",
		Title: "Create merge request",
		Description: "Create a merge request in a GitLab project from a source branch into a target branch. " +
			"Needs at least the Developer role. Both branches must exist and differ, and no other open merge " +
			"request may exist for the same branches. Start the title with \"Draft:\" to open it as a draft.",
		InputSchema: inputSchema(obj{
			"id":                projectIDProp(),
			"title":             strProp("Title of the merge request (at most 255 characters).", 1, maxTitleLength),
			"source_branch":     strProp("Name of the source branch.", 1, 255),
			"target_branch":     strProp("Name of the target branch.", 1, 255),
			"target_project_id": iidProp("ID of the target project. Only the project itself is supported (no forks)."),
			"assignee_ids":      idListProp("IDs of the users to assign. They must be members of the project; 0 is ignored."),
			"reviewer_ids":      idListProp("IDs of the users to request a review from. They must be members of the project; 0 is ignored."),
			"description":       strProp("Description of the merge request, in Markdown.", 0, maxDescriptionLength),
			"labels":            labelsProp(),
			"milestone_id":      iidProp("ID of the project milestone."),
		}, "id", "title", "source_branch", "target_branch"),
		Annotations: writeTool("Create merge request"),
		Toolset:     models.ToolsetMergeRequests,
		Unlisted:    true, // GitLab 19.5: unlisted: true (pending removal); callable by name
		Edition:     models.EditionCE,
		Run:         tools.Typed(g.runCreateMergeRequest),
	}
}

type createMRArgs struct {
	ID              refArg    `json:"id"`
	Title           string    `json:"title"`
	SourceBranch    string    `json:"source_branch"`
	TargetBranch    string    `json:"target_branch"`
	TargetProjectID *intArg   `json:"target_project_id"`
	AssigneeIDs     []intArg  `json:"assignee_ids"`
	ReviewerIDs     []intArg  `json:"reviewer_ids"`
	Description     string    `json:"description"`
	Labels          labelsArg `json:"labels"`
	MilestoneID     *intArg   `json:"milestone_id"`
}

func (g *gitlab) runCreateMergeRequest(ctx context.Context, call *tools.Call, args createMRArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	pa, err := resolveProject(ctx, g.store, u, "id", args.ID)
	if err != nil {
		return nil, err
	}
	// Milestones exist now: an unknown one is still "not found".
	milestone, err := g.milestoneArg(ctx, pa.project, nil, args.MilestoneID)
	if err != nil {
		return nil, err
	}
	labels, err := args.Labels.names()
	if err != nil {
		return nil, err
	}
	return g.openMergeRequest(ctx, u, pa, newMRSpec{Title: args.Title, SourceBranch: args.SourceBranch,
		TargetBranch: args.TargetBranch, TargetProjectID: args.TargetProjectID, AssigneeIDs: args.AssigneeIDs,
		ReviewerIDs: args.ReviewerIDs, Description: args.Description, Labels: labels, MilestoneID: milestone})
}

// newMRSpec is a merge request to open (create_merge_request and
// save_merge_request without merge_request_iid).
type newMRSpec struct {
	Title, SourceBranch, TargetBranch string
	TargetProjectID                   *intArg
	AssigneeIDs, ReviewerIDs          []intArg
	Description                       string
	Labels                            []string
	MilestoneID                       *int64
	Squash, RemoveSourceBranch        bool
}

// openMergeRequest checks and creates a merge request in pa's project as
// u, in one transaction, and renders it.
func (g *gitlab) openMergeRequest(ctx context.Context, u *models.User, pa *projectAccess, spec newMRSpec) (*tools.Result, error) {
	p := pa.project
	if !access.CanCreateMergeRequest(u, p, pa.level) {
		return nil, forbiddenf("you need at least the Developer role in project %s to create merge requests", p.PathWithNamespace)
	}
	title, err := checkTitle(spec.Title)
	if err != nil {
		return nil, err
	}
	source, target := strings.TrimSpace(spec.SourceBranch), strings.TrimSpace(spec.TargetBranch)
	switch {
	case source == "" || target == "":
		return nil, invalidf("source_branch and target_branch must not be blank")
	case source == target:
		return nil, invalidf("source_branch and target_branch must be different (both are %q)", source)
	case spec.TargetProjectID != nil && int64(*spec.TargetProjectID) != p.ID:
		return nil, invalidf("target_project_id: merge requests into another project (forks) are not supported; omit it or pass %d", p.ID)
	}
	labels := spec.Labels
	// Both branches must exist in git (GitLab's rule); the merge request
	// records the head and merge base it was opened on.
	if err := g.checkBranches(ctx, p, [2]string{"source_branch", source}, [2]string{"target_branch", target}); err != nil {
		return nil, err
	}
	cmp, err := g.compareMergeRequest(ctx, p, &models.MergeRequest{State: models.MergeRequestOpened,
		SourceBranch: source, TargetBranch: target}, repository.CompareOptions{SkipDiffs: true, MaxCommits: 1})
	if err != nil {
		return nil, err
	}
	var res *tools.Result
	err = g.inTx(ctx, func(tx Store) error {
		open, err := tx.FindOpenMergeRequest(ctx, p.ID, source, target)
		switch {
		case err == nil:
			return &models.OpenMergeRequestExistsError{IID: open.IID}
		case !errors.Is(err, models.ErrNotFound):
			return err
		}
		assignees, err := projectUsers(ctx, tx, p, "assignee_ids", spec.AssigneeIDs)
		if err != nil {
			return err
		}
		reviewers, err := projectUsers(ctx, tx, p, "reviewer_ids", spec.ReviewerIDs)
		if err != nil {
			return err
		}
		if err := ensureLabels(ctx, tx, p.ID, labels); err != nil {
			return err
		}
		mr := &models.MergeRequest{ProjectID: p.ID, Title: title, Description: spec.Description,
			State: models.MergeRequestOpened, SourceBranch: source, TargetBranch: target, AuthorID: u.ID,
			Labels: models.StringList(labels), Draft: isDraftTitle(title), MergeStatus: models.MergeStatusUnchecked,
			Assignees: assignees, Reviewers: reviewers, MilestoneID: spec.MilestoneID,
			SHA: cmp.HeadSHA, DiffBaseSHA: cmp.MergeBaseSHA,
			Squash: spec.Squash, ForceRemoveSourceBranch: spec.RemoveSourceBranch}
		if err := tx.CreateMergeRequest(ctx, mr); err != nil {
			return err
		}
		created, err := tx.LoadMergeRequest(ctx, p.ID, mr.IID)
		if err != nil {
			return err
		}
		res, err = g.mergeRequestResult(ctx, tx, u, pa, created)
		return err
	})
	// The check above and the database's unique index (two agents at
	// once) both answer as GitLab does.
	if dup := (*models.OpenMergeRequestExistsError)(nil); errors.As(err, &dup) {
		return nil, conflictf("Another open merge request already exists for this source branch: !%d", dup.IID)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// isDraftTitle reports whether a title marks a draft, as GitLab reads it:
// it starts with "Draft:", "[Draft]" or "(Draft)", ignoring case.
func isDraftTitle(title string) bool {
	t := strings.ToLower(title)
	for _, p := range []string{"draft:", "[draft]", "(draft)"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
