package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// managePipeline is GitLab 19.5's manage_pipeline: rename (name given) or
// delete (pipeline_id alone) a pipeline.
func managePipeline(g *gitlab) tools.Definition {
	t := managePipelineTool{inTx: g.inTx, links: g.links}
	return tools.Definition{
		Name:  "manage_pipeline",
		Title: "Manage pipeline",
		Description: "Manage CI/CD pipelines in GitLab projects. With pipeline_id and name, rename the pipeline; " +
			"with pipeline_id alone, delete the pipeline and all its jobs, logs and artifacts (needs the Owner role). " +
			"To create, retry, or cancel a pipeline, use the save_pipeline tool instead. To list pipelines, use the " +
			"list_pipelines tool instead.",
		InputSchema: argsSchema(t.run, obj{
			"id":          projectIDProp(),
			"pipeline_id": iidProp("ID of the pipeline to update or delete."),
			"name":        strProp("New name for the pipeline (for update operation)", 1, 255),
		}, "id", "pipeline_id"),
		Annotations: destructiveTool("Manage pipeline"),
		Toolset:     models.ToolsetCI,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/pipelines/pipeline_service.rb",
		Target:      ciTarget(g, "id", nil, "Pipeline"),
		Run:         tools.Typed(t.run),
	}
}

// managePipelineStore is what manage_pipeline writes with, in its
// transaction.
type managePipelineStore interface {
	pipelineLoadStore
	RenamePipeline(ctx context.Context, id int64, name string) (*models.Pipeline, error)
	DeletePipeline(ctx context.Context, id int64) error
}

// managePipelineTool is manage_pipeline with what it needs: the store's
// transactions (its Target, resolved before it runs, fails without a
// store) and the instance URL its answers link to.
type managePipelineTool struct {
	inTx  InTx
	links links
}

type managePipelineArgs struct {
	ID         refArg  `json:"id"`
	PipelineID intArg  `json:"pipeline_id"`
	Name       *string `json:"name"`
}

func (t managePipelineTool) run(ctx context.Context, call *tools.Call, args managePipelineArgs) (*tools.Result, error) {
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	var res *tools.Result
	err = t.inTx(ctx, func(tx Families) error {
		st := managePipelineStore(tx.CI)
		pa, p, err := targetPipeline(ctx, st, call, int64(args.PipelineID))
		if err != nil {
			return err
		}
		if args.Name != nil {
			name := strings.TrimSpace(*args.Name)
			if name == "" {
				return invalidf("name must not be blank")
			}
			if !access.CanUpdatePipeline(u, pa.project, pa.level) {
				return forbiddenf("you need at least the Developer role in project %s to update pipelines", pa.project.PathWithNamespace)
			}
			changed, err := st.RenamePipeline(ctx, p.ID, name)
			if err != nil {
				return err
			}
			out := t.links.pipelineData(pa.project, changed)
			out["message"] = "Pipeline updated successfully via manage_pipeline."
			res, err = jsonResult(out)
			return err
		}
		if !access.CanDeletePipeline(u, pa.project, pa.level) {
			return forbiddenf("you need the Owner role in project %s to delete pipelines", pa.project.PathWithNamespace)
		}
		if err := st.DeletePipeline(ctx, p.ID); err != nil {
			return err
		}
		res, err = jsonResult(obj{"id": p.ID, "status": "deleted",
			"message": "Pipeline deleted successfully via manage_pipeline."})
		return err
	})
	return res, err
}
