package gitlab

import (
	"context"
	"errors"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

type jobCommitJSON struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"`
}

type jobJSON struct {
	ID             int64         `json:"id"`
	Status         string        `json:"status"`
	Stage          string        `json:"stage"`
	Name           string        `json:"name"`
	Ref            string        `json:"ref"`
	Tag            bool          `json:"tag"`
	Coverage       *float64      `json:"coverage"`
	AllowFailure   bool          `json:"allow_failure"`
	CreatedAt      string        `json:"created_at"`
	StartedAt      *string       `json:"started_at"`
	FinishedAt     *string       `json:"finished_at"`
	ErasedAt       *string       `json:"erased_at"`
	Duration       *float64      `json:"duration"`
	QueuedDuration *float64      `json:"queued_duration"`
	User           *userJSON     `json:"user"`
	Commit         jobCommitJSON `json:"commit"`
	Pipeline       *pipelineJSON `json:"pipeline"`
	FailureReason  string        `json:"failure_reason,omitempty"`
	WebURL         string        `json:"web_url"`
	Artifacts      []any         `json:"artifacts"`
	TagList        []string      `json:"tag_list"`
	Archived       bool          `json:"archived"`
}

// getPipelineJobs is GitLab's get_pipeline_jobs:
// GET /projects/:id/pipelines/:pipeline_id/jobs.
func getPipelineJobs(g *gitlab) tools.Definition {
	t := getPipelineJobsTool{store: bind(g.store, func(f Families) getPipelineJobsStore { return getPipelineJobsStore{f.CI, f.Users} }), links: g.links}
	return tools.Definition{
		Name:  "get_pipeline_jobs",
		Title: "Get pipeline jobs",
		Description: "List the jobs of a GitLab CI/CD pipeline (name, stage, status, duration, failure reason), " +
			"a page at a time. pipeline_id is the pipeline's ID, as in its URL (/-/pipelines/<id>), not its IID.",
		InputSchema: argsSchema(t.run, obj{
			"id":          projectIDProp(),
			"pipeline_id": iidProp("ID of the pipeline."),
			"per_page":    perPageProp("jobs"),
			"page":        pageProp(),
		}, "id", "pipeline_id"),
		OutputSchema: tools.OutputSchemaOf[listJSON[jobJSON]](),
		Annotations:  readOnlyTool("Get pipeline jobs"),
		Toolset:      models.ToolsetCI,
		Edition:      models.EditionCE,
		Source:       "lib/api/ci/jobs.rb",
		// Guests of private projects see no pipelines.
		Target: ciTarget(g, "id", nil, "Pipeline"),
		Run:    tools.Typed(t.run),
	}
}

// getPipelineJobsStore is what get_pipeline_jobs needs from the store.
type getPipelineJobsStore struct {
	pipelineJobsCI
	userByID
}

// pipelineJobsCI is what get_pipeline_jobs reads of CI.
type pipelineJobsCI interface {
	pipelineLoadStore
	PagePipelineJobs(ctx context.Context, pipelineID int64, limit, offset int) ([]models.CIJob, int64, error)
}

// getPipelineJobsTool is get_pipeline_jobs with what it needs: the
// pipelines and jobs, and the instance URL its answers link to.
type getPipelineJobsTool struct {
	store *getPipelineJobsStore // nil: no store (a catalog built without one)
	links links
}

type getPipelineJobsArgs struct {
	ID         refArg `json:"id"`
	PipelineID intArg `json:"pipeline_id"`
	PerPage    intArg `json:"per_page"`
	Page       intArg `json:"page"`
}

func (t getPipelineJobsTool) run(ctx context.Context, call *tools.Call, args getPipelineJobsArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, pl, err := targetPipeline(ctx, t.store, call, int64(args.PipelineID))
	if err != nil {
		return nil, err
	}
	var by *userJSON
	if pl.UserID != nil {
		switch pu, err := t.store.FindUserByID(ctx, *pl.UserID); {
		case err == nil:
			by = t.links.user(pu)
		case !errors.Is(err, models.ErrNotFound):
			return nil, err
		}
	}
	page, perPage, err := paging(args.Page, args.PerPage)
	if err != nil {
		return nil, err
	}
	jobs, total, err := t.store.PagePipelineJobs(ctx, pl.ID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, err
	}
	pj := t.links.pipeline(pa.project, pl)
	short := pl.SHA
	if len(short) > 8 {
		short = short[:8]
	}
	items := make([]jobJSON, 0, len(jobs))
	for _, j := range jobs {
		items = append(items, jobJSON{
			ID: j.ID, Status: j.Status, Stage: j.Stage, Name: j.Name, Ref: j.Ref, AllowFailure: j.AllowFailure,
			CreatedAt: apiTime(j.CreatedAt), StartedAt: apiTimePtr(j.StartedAt), FinishedAt: apiTimePtr(j.FinishedAt),
			Duration: j.Duration, User: by, Commit: jobCommitJSON{ID: pl.SHA, ShortID: short}, Pipeline: pj,
			FailureReason: j.FailureReason, WebURL: t.links.jobURL(pa.project, j.ID),
			Artifacts: []any{}, TagList: []string{},
		})
	}
	return jsonResult(listJSON[jobJSON]{Items: items, PageInfo: newRESTPageInfo(page, perPage, total)})
}
