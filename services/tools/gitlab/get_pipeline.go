package gitlab

import (
	"context"
	"strconv"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

var pipelineFacets = []string{"jobs", "downstream_pipelines", "bridge_jobs", "artifacts"}

// getPipeline is GitLab 19.5's get_pipeline (GraphQL-backed, one facet,
// first/after with page_info in snake case).
func getPipeline(g *gitlab) tools.Definition {
	t := getPipelineTool{store: bind(g.store, func(f Families) getPipelineStore { return getPipelineStore{f.CI, f.Projects} }), links: g.links, cursors: g.cursors}
	return tools.Definition{
		Name:  "get_pipeline",
		Title: "Get pipeline",
		Description: "Get a CI/CD pipeline in a GitLab project, and optionally its jobs, downstream pipelines, bridge " +
			"(trigger) jobs, or the artifacts its jobs produced. A bridge job's downstream pipeline is omitted if you " +
			"do not have access to it. The artifacts facet pages over the pipeline's jobs; read one artifact file with " +
			"the get_artifact_file tool. To list pipelines, use the list_pipelines tool instead.",
		InputSchema: argsSchema(t.run, obj{
			"id":          projectIDProp(),
			"pipeline_id": iidProp("ID of the pipeline"),
			"include": withDesc(obj{"type": "array", "items": obj{"type": "string", "enum": pipelineFacets}, "maxItems": 1, "uniqueItems": true},
				"Facet to include alongside the pipeline, one per call: jobs, downstream_pipelines, bridge_jobs, or artifacts."),
			"job_status": enumProp("Filters the jobs facet by status (for example, failed). Only applies when include is jobs.", ciStatuses...),
			"first":      firstProp("items for the selected include facet", "", ""),
			"after":      cursorProp("items for the selected include facet", "page_info.end_cursor", ""),
		}, "id", "pipeline_id"),
		Annotations: readOnlyTool("Get pipeline"),
		Toolset:     models.ToolsetCI,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/pipelines/get_pipeline_tool.rb",
		Target:      ciTarget(g, "id", nil, "Pipeline"),
		Run:         tools.Typed(t.run),
	}
}

// getPipelineStore is what get_pipeline needs from the store.
type getPipelineStore struct {
	getPipelineCI
	projectLookup
}

// getPipelineCI is what get_pipeline reads of CI.
type getPipelineCI interface {
	pipelineLoadStore
	PageJobs(ctx context.Context, q models.JobQuery) ([]models.CIJob, bool, error)
	DownstreamPipelines(ctx context.Context, id, afterID int64, limit int) ([]models.Pipeline, bool, error)
	PipelinesTriggeredBy(ctx context.Context, jobIDs []int64) (map[int64]models.Pipeline, error)
	JobArtifacts(ctx context.Context, jobIDs []int64) ([]models.JobArtifact, error)
}

// getPipelineTool is get_pipeline with what it needs: the pipelines, the
// instance URL its answers link to and the cursor signer of its facets.
type getPipelineTool struct {
	store   *getPipelineStore // nil: no store (a catalog built without one)
	links   links
	cursors *cursor.Signer
}

type getPipelineArgs struct {
	ID         refArg   `json:"id"`
	PipelineID intArg   `json:"pipeline_id"`
	Include    []string `json:"include"`
	JobStatus  string   `json:"job_status"`
	First      intArg   `json:"first"`
	After      string   `json:"after"`
}

type snakePageInfo struct {
	HasNextPage bool    `json:"has_next_page"`
	EndCursor   *string `json:"end_cursor"`
}

func (t getPipelineTool) run(ctx context.Context, call *tools.Call, args getPipelineArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	pa, p, err := targetPipeline(ctx, t.store, call, int64(args.PipelineID))
	if err != nil {
		return nil, err
	}
	facet := ""
	if len(args.Include) > 0 {
		facet = args.Include[0]
	}
	if args.JobStatus != "" && facet != "jobs" {
		return nil, invalidf("job_status applies only when include is [\"jobs\"]")
	}
	if facet == "" && (args.First != 0 || args.After != "") {
		return nil, invalidf("first and after apply only with an include facet")
	}
	out := t.links.pipelineData(pa.project, p)
	pages := newPager(t.cursors, call, "get_pipeline", "pipeline:"+strconv.FormatInt(p.ID, 10)+":"+facet+":"+args.JobStatus, nil)
	after, err := pages.open("after", args.After)
	if err != nil {
		return nil, err
	}
	limit := pageSize(args.First)
	var more bool
	var last int64
	switch facet {
	case "jobs", "artifacts", "bridge_jobs":
		typ := models.JobTypeBuild
		if facet == "bridge_jobs" {
			typ = models.JobTypeBridge
		}
		jobs, m, err := t.store.PageJobs(ctx, models.JobQuery{PipelineID: p.ID, Type: typ, Status: args.JobStatus, AfterID: after, Limit: limit})
		if err != nil {
			return nil, err
		}
		more = m
		if n := len(jobs); n > 0 {
			last = jobs[n-1].ID
		}
		switch facet {
		case "jobs":
			list := make([]ciJobJSON, 0, len(jobs))
			for k := range jobs {
				list = append(list, t.links.ciJob(pa.project, &jobs[k]))
			}
			out["jobs"] = list
		case "artifacts":
			if err := t.pipelineArtifacts(ctx, out, jobs); err != nil {
				return nil, err
			}
		case "bridge_jobs":
			if err := t.bridgeJobs(ctx, u, out, jobs); err != nil {
				return nil, err
			}
		}
	case "downstream_pipelines":
		ds, m, err := t.store.DownstreamPipelines(ctx, p.ID, after, limit)
		if err != nil {
			return nil, err
		}
		more = m
		list := make([]obj, 0, len(ds))
		for k := range ds {
			dp, ok, err := t.visibleDownstream(ctx, u, &ds[k])
			if err != nil {
				return nil, err
			}
			if ok {
				list = append(list, dp)
			}
		}
		if n := len(ds); n > 0 {
			last = ds[n-1].ID
		}
		out["downstream_pipelines"] = list
	}
	if facet != "" {
		pi := snakePageInfo{HasNextPage: more}
		if last > 0 {
			c := pages.mint(last)
			pi.EndCursor = &c
		}
		out["page_info"] = pi
	}
	return jsonResult(out)
}

// visibleDownstream renders a downstream pipeline if u may read its
// project (it can be another project's).
func (t getPipelineTool) visibleDownstream(ctx context.Context, u *models.User, p *models.Pipeline) (obj, bool, error) {
	proj, level, err := t.store.FindProjectWithRoleByID(ctx, p.ProjectID, u.ID)
	if err != nil {
		return nil, false, err
	}
	if !access.CanReadCode(u, proj, level) {
		return nil, false, nil
	}
	out := t.links.pipelineData(proj, p)
	out["project_full_path"] = proj.PathWithNamespace
	return out, true, nil
}

func (t getPipelineTool) bridgeJobs(ctx context.Context, u *models.User, out obj, jobs []models.CIJob) error {
	ids := make([]int64, len(jobs))
	for k := range jobs {
		ids[k] = jobs[k].ID
	}
	triggered, err := t.store.PipelinesTriggeredBy(ctx, ids)
	if err != nil {
		return err
	}
	list := make([]obj, 0, len(jobs))
	for k := range jobs {
		j := &jobs[k]
		b := obj{"id": j.ID, "name": j.Name, "status": j.Status, "downstream_pipeline": nil}
		if dp, ok := triggered[j.ID]; ok {
			rendered, visible, err := t.visibleDownstream(ctx, u, &dp)
			if err != nil {
				return err
			}
			if visible {
				b["downstream_pipeline"] = rendered
			}
		}
		list = append(list, b)
	}
	out["bridge_jobs"] = list
	return nil
}

func (t getPipelineTool) pipelineArtifacts(ctx context.Context, out obj, jobs []models.CIJob) error {
	ids := make([]int64, len(jobs))
	names := map[int64]string{}
	for k := range jobs {
		ids[k] = jobs[k].ID
		names[jobs[k].ID] = jobs[k].Name
	}
	arts, err := t.store.JobArtifacts(ctx, ids)
	if err != nil {
		return err
	}
	list := make([]artifactJSON, 0, len(arts))
	for k := range arts {
		a := artifactOf(&arts[k])
		a.JobID, a.JobName = arts[k].JobID, names[arts[k].JobID]
		list = append(list, a)
	}
	out["artifacts"] = list
	return nil
}
