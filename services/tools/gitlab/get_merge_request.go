package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() {
	register((*gitlab).getMergeRequest)
}

func (g *gitlab) getMergeRequest() tools.Definition {
	return tools.Definition{
		Name:  "get_merge_request",
		Title: "Get merge request",
		Description: "Get a single merge request of a GitLab project by its internal ID (the number after !): " +
			"title, description, state, branches, author, assignees, reviewers, merge status and head pipeline.",
		InputSchema: inputSchema(mrSchema(false, ""), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
			c, err := g.readableMergeRequest(ctx, call, args)
			if err != nil {
				return nil, err
			}
			return g.mergeRequestResult(ctx, g.store, c.user, c.pa, c.mr)
		}),
	}
}
