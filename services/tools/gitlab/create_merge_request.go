package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

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
