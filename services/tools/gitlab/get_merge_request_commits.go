package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func init() {
	register((*gitlab).getMergeRequestCommits)
}

type commitJSON struct {
	ID             string            `json:"id"`
	ShortID        string            `json:"short_id"`
	CreatedAt      string            `json:"created_at"`
	ParentIDs      []string          `json:"parent_ids"`
	Title          string            `json:"title"`
	Message        string            `json:"message"`
	AuthorName     string            `json:"author_name"`
	AuthorEmail    string            `json:"author_email"`
	AuthoredDate   string            `json:"authored_date"`
	CommitterName  string            `json:"committer_name"`
	CommitterEmail string            `json:"committer_email"`
	CommittedDate  string            `json:"committed_date"`
	Trailers       map[string]string `json:"trailers"`
	WebURL         string            `json:"web_url"`
}

func (g *gitlab) getMergeRequestCommits() tools.Definition {
	return tools.Definition{
		Name:        "get_merge_request_commits",
		Title:       "Get merge request commits",
		Description: "List the commits of a GitLab merge request, newest first, a page at a time.",
		InputSchema: inputSchema(mrSchema(true, "commits"), "id", "merge_request_iid"),
		Annotations: readOnlyTool("Get merge request commits"),
		Toolset:     models.ToolsetMergeRequests,
		Unlisted:    true, // superseded in GitLab 19.5; callable by name
		Edition:     models.EditionCE,
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
			c, err := g.readableMergeRequest(ctx, call, args)
			if err != nil {
				return nil, err
			}
			page, perPage, err := paging(c.args.Page, c.args.PerPage)
			if err != nil {
				return nil, err
			}
			commits, total, err := g.store.PageMergeRequestCommits(ctx, c.mr.ID, perPage, (page-1)*perPage)
			if err != nil {
				return nil, err
			}
			items := make([]commitJSON, 0, len(commits))
			commitURL := g.projectURL(c.pa.project) + "/-/commit/"
			for _, cm := range commits {
				items = append(items, commitJSON{
					ID: cm.SHA, ShortID: cm.ShortID, CreatedAt: apiTime(cm.CommittedDate), ParentIDs: []string{},
					Title: cm.Title, Message: cm.Message, AuthorName: cm.AuthorName, AuthorEmail: cm.AuthorEmail,
					AuthoredDate: apiTime(cm.AuthoredDate), CommitterName: cm.CommitterName,
					CommitterEmail: cm.CommitterEmail, CommittedDate: apiTime(cm.CommittedDate),
					Trailers: map[string]string{}, WebURL: commitURL + cm.SHA,
				})
			}
			return jsonResult(listJSON[commitJSON]{Items: items, PageInfo: newRESTPageInfo(page, perPage, total)})
		}),
	}
}
