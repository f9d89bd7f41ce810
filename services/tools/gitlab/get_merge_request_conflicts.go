package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getMergeRequestConflicts is GitLab's get_merge_request_conflicts
// (superseded in 19.5 by get_merge_request's conflicts facet): the
// conflicted files of a merge request with git's conflict markers, as
// plain text.
func getMergeRequestConflicts(g *gitlab) tools.Definition {
	t := mrConflictsTool{git: mrGitOf(g)}
	return tools.Definition{
		Name:  "get_merge_request_conflicts",
		Title: "Get merge request conflicts",
		Description: "Get merge conflict content for a merge request that cannot be merged. Returns raw git conflict " +
			"markers (<<<<<<, =======, >>>>>>>) exactly as they appear in conflicted files.",
		InputSchema: argsSchema(t.run, obj{
			"project_id":        projectRefProp(`Project ID (numeric) or full path (e.g., "gitlab-org/gitlab")`),
			"merge_request_iid": iidProp("Merge request internal ID"),
		}, "project_id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request conflicts"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/merge_requests/get_merge_request_conflicts_service.rb",
		Target:      g.mrRefTarget(),
		Run:         tools.Typed(t.run),
	}
}

// mrConflictsArgs are get_merge_request_conflicts's arguments: the older
// tool names a merge request by project_id and merge_request_iid only (no
// url).
type mrConflictsArgs struct {
	ProjectID       refArg `json:"project_id"`
	MergeRequestIID intArg `json:"merge_request_iid"`
}

// mrConflictsTool is get_merge_request_conflicts with what it needs: git.
type mrConflictsTool struct {
	git mrGit
}

func (t mrConflictsTool) run(ctx context.Context, call *tools.Call, _ mrConflictsArgs) (*tools.Result, error) {
	if err := t.git.storeMissing(); err != nil {
		return nil, err
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	pa, mr, err := targetMergeRequest(call)
	if err != nil {
		return nil, err
	}
	cs, err := t.git.conflicts(ctx, u, pa, mr)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, invalidf("Merge request does not have conflicts")
	}
	return &tools.Result{Text: conflictText(cs)}, nil
}
