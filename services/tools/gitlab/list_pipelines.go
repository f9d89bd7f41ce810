package gitlab

import (
	"context"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listPipelines is GitLab 19.5's list_pipelines (REST: GET
// /projects/:id/pipelines, page/per_page).
func listPipelines(g *gitlab) tools.Definition {
	t := listPipelinesTool{store: g.store.CI, links: g.links}
	return tools.Definition{
		Name:  "list_pipelines",
		Title: "List pipelines",
		Description: "List pipelines in a GitLab project, with optional filters. Child pipelines are excluded unless " +
			"source is parent_pipeline. The default order (id, desc) returns the highest pipeline IDs first.",
		InputSchema: argsSchema(t.run, obj{
			"id":             projectIDProp(),
			"ref":            strProp("Branch or tag name. Filters pipelines by ref.", 1, 255),
			"status":         enumProp("Filters pipelines by status.", ciStatuses...),
			"source":         enumProp("Filters pipelines by source.", pipelineSources...),
			"created_after":  withDesc(obj{"type": "string", "format": "date-time"}, "Return pipelines created on or after the given date-time (ISO 8601)."),
			"created_before": withDesc(obj{"type": "string", "format": "date-time"}, "Return pipelines created before the given date-time (ISO 8601)."),
			"order_by":       enumProp("Order pipelines by. Default id.", "id", "status", "ref", "updated_at", "user_id"),
			"sort":           enumProp("Sort direction. Default desc.", "asc", "desc"),
			"page":           pageProp(),
			"per_page":       perPageProp("pipelines"),
		}, "id"),
		OutputSchema: tools.OutputSchemaOf[listJSON[*pipelineJSON]](),
		Annotations:  readOnlyTool("List pipelines"),
		Toolset:      models.ToolsetCI,
		Edition:      models.EditionCE,
		Source:       "lib/api/ci/pipelines.rb",
		Target:       g.projectTarget("id", access.ReadCode, func(*models.Project) error { return notFound("Project") }),
		Run:          tools.Typed(t.run),
	}
}

// listPipelinesStore is what list_pipelines needs from the store.
type listPipelinesStore interface {
	ListPipelines(ctx context.Context, q models.PipelineQuery) ([]models.Pipeline, bool, error)
}

// listPipelinesTool is list_pipelines with what it needs: the pipelines
// and the instance URL its answers link to.
type listPipelinesTool struct {
	store listPipelinesStore // nil: no store (a catalog built without one)
	links links
}

type listPipelinesArgs struct {
	ID            refArg `json:"id"`
	Ref           string `json:"ref"`
	Status        string `json:"status"`
	Source        string `json:"source"`
	CreatedAfter  string `json:"created_after"`
	CreatedBefore string `json:"created_before"`
	OrderBy       string `json:"order_by"`
	Sort          string `json:"sort"`
	Page          intArg `json:"page"`
	PerPage       intArg `json:"per_page"`
}

func (t listPipelinesTool) run(ctx context.Context, call *tools.Call, args listPipelinesArgs) (*tools.Result, error) {
	if t.store == nil {
		return nil, errNoStore
	}
	if _, err := callerOf(call); err != nil {
		return nil, err
	}
	pa, err := targetProject(call)
	if err != nil {
		return nil, err
	}
	page, perPage, err := paging(args.Page, args.PerPage)
	if err != nil {
		return nil, err
	}
	q := models.PipelineQuery{ProjectID: pa.project.ID, Ref: args.Ref, Status: args.Status, Source: args.Source,
		OrderBy: args.OrderBy, Sort: args.Sort, Page: page, PerPage: perPage}
	for _, t := range []struct {
		field, raw string
		dst        **time.Time
	}{{"created_after", args.CreatedAfter, &q.CreatedAfter}, {"created_before", args.CreatedBefore, &q.CreatedBefore}} {
		if t.raw == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.raw)
		if err != nil {
			return nil, invalidf("%s: %q is not an ISO 8601 date-time (for example 2026-11-30T12:00:00Z)", t.field, t.raw)
		}
		v = v.UTC()
		*t.dst = &v
	}
	ps, more, err := t.store.ListPipelines(ctx, q)
	if err != nil {
		return nil, err
	}
	items := make([]*pipelineJSON, 0, len(ps))
	for k := range ps {
		items = append(items, t.links.pipeline(pa.project, &ps[k]))
	}
	pi := keysetPageJSON{Page: page, PerPage: perPage}
	if more {
		next := page + 1
		pi.NextPage = &next
	}
	if page > 1 {
		prev := page - 1
		pi.PrevPage = &prev
	}
	return jsonResult(listJSON[*pipelineJSON]{Items: items, PageInfo: pi})
}

// keysetPageJSON is REST page info without totals (GitLab leaves X-Total
// out when counting would be costly; glmcp never counts).
type keysetPageJSON struct {
	Page     int  `json:"page"`
	PerPage  int  `json:"per_page"`
	NextPage *int `json:"next_page"`
	PrevPage *int `json:"prev_page"`
}
