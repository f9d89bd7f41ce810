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
func (g *gitlab) getMergeRequestConflicts() tools.Definition {
	return tools.Definition{
		Name:  "get_merge_request_conflicts",
		Title: "Get merge request conflicts",
		Description: "Get merge conflict content for a merge request that cannot be merged. Returns raw git conflict " +
			"markers (<<<<<<, =======, >>>>>>>) exactly as they appear in conflicted files.",
		InputSchema: inputSchema(obj{
			"project_id":        projectRefProp(`Project ID (numeric) or full path (e.g., "gitlab-org/gitlab")`),
			"merge_request_iid": iidProp("Merge request internal ID"),
		}, "project_id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request conflicts"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/merge_requests/get_merge_request_conflicts_service.rb",
		Target:      g.mrRefTarget(),
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrRefArgs) (*tools.Result, error) {
			u, err := g.viewer(call)
			if err != nil {
				return nil, err
			}
			pa, mr, err := targetMergeRequest(call)
			if err != nil {
				return nil, err
			}
			cs, err := g.mrConflicts(ctx, u, pa, mr)
			if err != nil {
				return nil, err
			}
			if len(cs) == 0 {
				return nil, invalidf("Merge request does not have conflicts")
			}
			return &tools.Result{Text: conflictText(cs)}, nil
		}),
	}
}
