package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() { register((*gitlab).listTags) }

type listTagsArgs struct {
	repoTarget
	Search  string `json:"search"`
	PerPage intArg `json:"per_page"`
	Page    intArg `json:"page"`
}

type tagJSON struct {
	Name      string     `json:"name"`
	Message   string     `json:"message"`
	Target    string     `json:"target"`
	Commit    commitJSON `json:"commit"`
	Protected bool       `json:"protected"`
}

func (g *gitlab) listTags() tools.Definition {
	props := repoProps("GitLab URL of the project. Provide this, or project_id.", "ID or path of the project. Required if url is not provided.")
	props["search"] = strProp("Return tags whose name contains this text.", 0, 255)
	props["per_page"] = perPageProp("tags")
	props["page"] = pageProp()
	return tools.Definition{
		Name:        "list_tags",
		Title:       "List tags",
		Description: "List the tags of a GitLab project's repository, by name, a page at a time.",
		InputSchema: inputSchema(props),
		Annotations: readOnlyTool("List tags"),
		Toolset:     models.ToolsetRepository,
		Edition:     models.EditionCE,
		Run:         tools.Typed(g.runListTags),
	}
}

func (g *gitlab) runListTags(ctx context.Context, call *tools.Call, args listTagsArgs) (*tools.Result, error) {
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
	page, perPage := paging(args.Page, args.PerPage)
	total := int64(len(items))
	from := min(len(items), (page-1)*perPage)
	return jsonResult(listJSON[tagJSON]{Items: items[from:min(len(items), from+perPage)], PageInfo: newRESTPageInfo(page, perPage, total)})
}
