package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func (g *gitlab) getMergeRequestPipelines() tools.Definition {
	return tools.Definition{
		Name:  "get_merge_request_pipelines",
		Title: "Get merge request pipelines",
		Description: "List the CI/CD pipelines of a GitLab merge request, newest first (at most 100): merge request " +
			"pipelines and branch pipelines that ran on its commits.",
		InputSchema:  inputSchema(mrSchema(false, ""), "id", "merge_request_iid"),
		OutputSchema: tools.OutputSchemaOf[listJSON[*pipelineJSON]](),
		Annotations:  readOnlyTool("Get merge request pipelines"),
		Toolset:      models.ToolsetMergeRequests,
		Edition:      models.EditionCE,
		Source:       "lib/api/merge_requests.rb",
		Target:       g.target(tools.TargetMergeRequest, access.ReadMergeRequest),
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
			c, err := g.readableMergeRequest(call, args)
			if err != nil {
				return nil, err
			}
			shas, err := g.mrCommitSHAs(ctx, c.pa.project, c.mr)
			if err != nil {
				return nil, err
			}
			pipelines, total, err := g.store.MergeRequestPipelines(ctx, c.mr, shas, maxPerPage)
			if err != nil {
				return nil, err
			}
			items := make([]*pipelineJSON, 0, len(pipelines))
			for k := range pipelines {
				items = append(items, g.links.pipeline(c.pa.project, &pipelines[k]))
			}
			return jsonResult(listJSON[*pipelineJSON]{Items: items, PageInfo: newRESTPageInfo(1, maxPerPage, total)})
		}),
	}
}
