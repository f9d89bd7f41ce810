package gitlab

import (
	"context"
	"net/url"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// listBranchesArgs are list_branches' arguments: GitLab's REST names (its
// list_branches tool is the REST endpoint GET /projects/:id/repository/branches).
type listBranchesArgs struct {
	ID      refArg `json:"id"`
	Search  string `json:"search"`
	PerPage intArg `json:"per_page"`
	Page    intArg `json:"page"`
}

type branchItemJSON struct {
	Name               string     `json:"name"`
	Merged             bool       `json:"merged"`
	Protected          bool       `json:"protected"`
	Default            bool       `json:"default"`
	DevelopersCanPush  bool       `json:"developers_can_push"`
	DevelopersCanMerge bool       `json:"developers_can_merge"`
	CanPush            bool       `json:"can_push"`
	WebURL             string     `json:"web_url"`
	Commit             commitJSON `json:"commit"`
}

func listBranches(g *gitlab) tools.Definition {
	t := listBranchesTool{repo: newRepoOpener(g)}
	props := obj{
		"id":       strProp("The ID or URL-encoded path of the project.", 1, 1024),
		"search":   strProp("Return branches whose name contains this text.", 0, 255),
		"per_page": perPageProp("branches"),
		"page":     pageProp(),
	}
	return tools.Definition{
		Name:         "list_branches",
		Title:        "List branches",
		Description:  "List the branches of a GitLab project's repository, by name, a page at a time.",
		InputSchema:  argsSchema(t.run, props, "id"),
		OutputSchema: tools.OutputSchemaOf[listJSON[branchItemJSON]](),
		Annotations:  readOnlyTool("List branches"),
		Toolset:      models.ToolsetRepository,
		Edition:      models.EditionCE,
		Source:       "lib/api/branches.rb",
		Target:       g.repoProject("id", noURL, func(string) error { return notFound("Project") }),
		Run:          tools.Typed(t.run),
	}
}

// listBranchesTool is list_branches with what it needs: the project's repository.
type listBranchesTool struct {
	repo repoOpener
}

func (t listBranchesTool) run(ctx context.Context, call *tools.Call, args listBranchesArgs) (*tools.Result, error) {
	ra, err := t.repo.open(ctx, call, repoTarget{ProjectID: args.ID})
	if err != nil {
		return nil, err
	}
	defer ra.Close()
	branches, err := ra.repo.Branches(ctx)
	if err != nil {
		return nil, err
	}
	p := ra.pa.project
	items := []branchItemJSON{}
	for i := range branches {
		b := &branches[i]
		if args.Search != "" && !strings.Contains(strings.ToLower(b.Name), strings.ToLower(args.Search)) {
			continue
		}
		isDefault := b.Name == p.DefaultBranch
		items = append(items, branchItemJSON{
			Name: b.Name, Protected: isDefault, Default: isDefault, DevelopersCanPush: !isDefault, DevelopersCanMerge: !isDefault,
			CanPush: canPush(ra.user, p, ra.pa.level, b.Name) == nil,
			WebURL:  t.repo.links.projectURL(p) + "/-/tree/" + url.PathEscape(b.Name), Commit: t.repo.links.commitJSONOf(p, &b.Commit),
		})
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
