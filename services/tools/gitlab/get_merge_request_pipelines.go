package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getMergeRequestPipelines is GitLab's REST list of a merge request's
// pipelines.
func getMergeRequestPipelines(g *gitlab) tools.Definition {
	t := mrPipelinesTool{links: g.links, git: mrGitOf(g)}
	if !noStore(g.store) {
		t.store = g.store.MergeRequests
	}
	return tools.Definition{
		Name:  "get_merge_request_pipelines",
		Title: "Get merge request pipelines",
		Description: "List the CI/CD pipelines of a GitLab merge request, newest first (at most 100): merge request " +
			"pipelines and branch pipelines that ran on its commits.",
		InputSchema:  argsSchema(t.run, mrSchema(false, ""), "id", "merge_request_iid"),
		OutputSchema: tools.OutputSchemaOf[listJSON[*pipelineJSON]](),
		Annotations:  readOnlyTool("Get merge request pipelines"),
		Toolset:      models.ToolsetMergeRequests,
		Edition:      models.EditionCE,
		Source:       "lib/api/merge_requests.rb",
		Target:       g.target(tools.TargetMergeRequest, access.ReadMergeRequest),
		Run:          tools.Typed(t.run),
	}
}

// mrPipelinesArgs are get_merge_request_pipelines's arguments: the merge
// request (mrArgs without the paging, for the tool shows one page).
type mrPipelinesArgs struct {
	ID              refArg `json:"id"`
	MergeRequestIID intArg `json:"merge_request_iid"`
}

// mrPipelinesStore is what get_merge_request_pipelines reads from the
// store.
type mrPipelinesStore interface {
	MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, int64, error)
}

// mrPipelinesTool is get_merge_request_pipelines with what it needs: the
// pipelines, the links they carry, and git for the merge request's
// commits.
type mrPipelinesTool struct {
	store mrPipelinesStore // nil: no store (a catalog built without one)
	links links
	git   mrGit
}

func (t mrPipelinesTool) run(ctx context.Context, call *tools.Call, _ mrPipelinesArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, mr, err := targetMergeRequest(call)
	if err != nil {
		return nil, err
	}
	shas, err := t.git.commitSHAs(ctx, pa.project, mr)
	if err != nil {
		return nil, err
	}
	pipelines, total, err := t.store.MergeRequestPipelines(ctx, mr, shas, maxPerPage)
	if err != nil {
		return nil, err
	}
	items := make([]*pipelineJSON, 0, len(pipelines))
	for k := range pipelines {
		items = append(items, t.links.pipeline(pa.project, &pipelines[k]))
	}
	return jsonResult(listJSON[*pipelineJSON]{Items: items, PageInfo: newRESTPageInfo(1, maxPerPage, total)})
}
