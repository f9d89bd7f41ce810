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
func (g *gitlab) managePipeline() tools.Definition {
	return tools.Definition{
		Name:  "manage_pipeline",
		Title: "Manage pipeline",
		Description: "Manage CI/CD pipelines in GitLab projects. With pipeline_id and name, rename the pipeline; " +
			"with pipeline_id alone, delete the pipeline and all its jobs, logs and artifacts (needs the Owner role). " +
			"To create, retry, or cancel a pipeline, use the save_pipeline tool instead. To list pipelines, use the " +
			"list_pipelines tool instead.",
		InputSchema: argsSchema(g.runManagePipeline, obj{
			"id":          projectIDProp(),
			"pipeline_id": iidProp("ID of the pipeline to update or delete."),
			"name":        strProp("New name for the pipeline (for update operation)", 1, 255),
		}, "id", "pipeline_id"),
		Annotations: destructiveTool("Manage pipeline"),
		Toolset:     models.ToolsetCI,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/pipelines/pipeline_service.rb",
		Target:      g.ciTarget("id", nil, "Pipeline"),
		Run:         tools.Typed(g.runManagePipeline),
	}
}

type managePipelineArgs struct {
	ID         refArg  `json:"id"`
	PipelineID intArg  `json:"pipeline_id"`
	Name       *string `json:"name"`
}

func (g *gitlab) runManagePipeline(ctx context.Context, call *tools.Call, args managePipelineArgs) (*tools.Result, error) {
	u, err := g.viewer(call)
	if err != nil {
		return nil, err
	}
	var res *tools.Result
	err = g.inTx(ctx, func(tx Store) error {
		pa, p, err := loadInTarget(ctx, call, int64(args.PipelineID), "Pipeline", tx.LoadPipeline)
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
			changed, err := tx.RenamePipeline(ctx, p.ID, name)
			if err != nil {
				return err
			}
			out := g.pipelineData(pa.project, changed)
			out["message"] = "Pipeline updated successfully via manage_pipeline."
			res, err = jsonResult(out)
			return err
		}
		if !access.CanDeletePipeline(u, pa.project, pa.level) {
			return forbiddenf("you need the Owner role in project %s to delete pipelines", pa.project.PathWithNamespace)
		}
		if err := tx.DeletePipeline(ctx, p.ID); err != nil {
			return err
		}
		res, err = jsonResult(obj{"id": p.ID, "status": "deleted",
			"message": "Pipeline deleted successfully via manage_pipeline."})
		return err
	})
	return res, err
}
