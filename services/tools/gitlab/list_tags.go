package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() { register((*gitlab).listTags) }

type tagJSON struct {
	Name      string     `json:"name"`
	Message   string     `json:"message"`
	Target    string     `json:"target"`
	Commit    commitJSON `json:"commit"`
	Protected bool       `json:"protected"`
}

func (g *gitlab) listTags() tools.Definition {
	props := refListProps("tags")
	return tools.Definition{
		Name:         "list_tags",
		Title:        "List tags",
		Description:  "List the tags of a GitLab project's repository, by name, a page at a time.",
		InputSchema:  inputSchema(props),
		OutputSchema: tools.OutputSchemaOf[listJSON[tagJSON]](),
		Annotations:  readOnlyTool("List tags"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Run:          tools.Typed(g.runListTags),
	}
}

func (g *gitlab) runListTags(ctx context.Context, call *tools.Call, args refListArgs) (*tools.Result, error) {
	ra, err := g.openRepository(ctx, call, args.repoTarget, func(string) error { return notFound("Project") })
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	tags, err := ra.repo.Tags(ctx)
	if err != nil {
		return nil, err
	}
	items := []tagJSON{}
	for i := range tags {
		t := &tags[i]
		if args.Search != "" && !strings.Contains(strings.ToLower(t.Name), strings.ToLower(args.Search)) {
			continue
		}
		items = append(items, tagJSON{Name: t.Name, Message: t.Message, Target: t.TargetID, Commit: g.commitJSONOf(ra.pa.project, &t.Commit)})
	}
	return pageOf(items, args.Page, args.PerPage)
}

// pageOf is one REST page of a list built in memory, rendered (or the
// validation error of a page past the offset cap).
func pageOf[T any](items []T, page, perPage intArg) (*tools.Result, error) {
	p, pp, err := paging(page, perPage)
	if err != nil {
		return nil, err
	}
	from := min(len(items), (p-1)*pp)
	return jsonResult(listJSON[T]{Items: items[from:min(len(items), from+pp)], PageInfo: newRESTPageInfo(p, pp, int64(len(items)))})
}
