package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func (g *gitlab) getMergeRequestCommits() tools.Definition {
	return tools.Definition{
		Name:        "get_merge_request_commits",
		Title:       "Get merge request commits",
		Description: "List the commits of a GitLab merge request, newest first, a page at a time.",
		InputSchema: inputSchema(mrSchema(true, "commits"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request commits"),
		Toolset:     models.ToolsetMergeRequests,
		Edition:     models.EditionCE,
		Source:      "lib/api/merge_requests.rb",
		Target:      g.target(tools.TargetMergeRequest, access.ReadMergeRequest),
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
			return mrPage(ctx, g, call, args, repository.CompareOptions{SkipDiffs: true},
				func(c *mrCall, cmp *repository.Comparison) []commitJSON {
					items := make([]commitJSON, 0, len(cmp.Commits))
					for k := range cmp.Commits {
						items = append(items, g.links.commitJSONOf(c.pa.project, &cmp.Commits[k]))
					}
					return items
				})
		}),
	}
}
