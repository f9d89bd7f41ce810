package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
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
		Edition:     models.EditionCE,
		Run: tools.Typed(func(ctx context.Context, call *tools.Call, args mrArgs) (*tools.Result, error) {
			return mrPage(ctx, g, call, args, repository.CompareOptions{SkipDiffs: true},
				func(c *mrCall, cmp *repository.Comparison) []commitJSON {
					items := make([]commitJSON, 0, len(cmp.Commits))
					for k := range cmp.Commits {
						items = append(items, g.commitJSONOf(c.pa.project, &cmp.Commits[k]))
					}
					return items
				})
		}),
	}
}
