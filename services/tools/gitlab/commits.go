package gitlab

import (
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

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

type commitNodeJSON struct {
	ID               string         `json:"id"`
	Sha              string         `json:"sha"`
	ShortID          string         `json:"shortId"`
	Title            string         `json:"title"`
	Message          string         `json:"message"`
	AuthorName       string         `json:"authorName"`
	AuthorEmail      string         `json:"authorEmail"`
	AuthoredDate     string         `json:"authoredDate"`
	CommitterName    string         `json:"committerName"`
	CommitterEmail   string         `json:"committerEmail"`
	CommittedDate    string         `json:"committedDate"`
	WebURL           string         `json:"webUrl"`
	DiffStatsSummary *diffStatsJSON `json:"diffStatsSummary,omitempty"`
}

// commitNode renders a commit in the GraphQL shape of the repository tools.
func (l links) commitNode(p *models.Project, c *repository.Commit) commitNodeJSON {
	return commitNodeJSON{ID: "gid://gitlab/CommitPresenter/" + c.ID, Sha: c.ID, ShortID: c.ID[:8], Title: c.Title,
		Message: c.Message, AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, AuthoredDate: apiTime(c.Author.When),
		CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email, CommittedDate: apiTime(c.Committer.When),
		WebURL: l.projectURL(p) + "/-/commit/" + c.ID}
}

type diffStatsJSON struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	FileCount int `json:"fileCount"`
}
