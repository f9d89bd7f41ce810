package gitlab

import (
	"path"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// The REST entities of the search scopes backed by the store, beyond the
// issue, merge request, note, project and user ones the other tools share.

// groupSummaryJSON is GitLab's Group entity as the groups search scope
// shows it.
type groupSummaryJSON struct {
	ID          int64  `json:"id"`
	WebURL      string `json:"web_url"`
	Name        string `json:"name"`
	Path        string `json:"path"`
	Description string `json:"description"`
	Visibility  string `json:"visibility"`
	FullName    string `json:"full_name"`
	FullPath    string `json:"full_path"`
	CreatedAt   string `json:"created_at"`
	ParentID    *int64 `json:"parent_id"`
}

func (l links) groupSummary(grp *models.Group, fullName string) *groupSummaryJSON {
	return &groupSummaryJSON{ID: grp.ID, WebURL: l.groupURL(grp), Name: grp.Name, Path: grp.Path,
		Description: grp.Description, Visibility: string(grp.Visibility), FullName: fullName, FullPath: grp.FullPath,
		CreatedAt: apiTime(grp.CreatedAt), ParentID: grp.ParentID}
}

// milestoneResultJSON is GitLab's Milestone entity.
type milestoneResultJSON struct {
	ID          int64   `json:"id"`
	IID         int64   `json:"iid"`
	ProjectID   int64   `json:"project_id"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	State       string  `json:"state"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	DueDate     *string `json:"due_date"`
	StartDate   *string `json:"start_date"`
	Expired     bool    `json:"expired"`
	WebURL      string  `json:"web_url"`
}

func (l links) milestoneResult(p *models.Project, m *models.Milestone) *milestoneResultJSON {
	out := &milestoneResultJSON{ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: string(m.State), CreatedAt: apiTime(m.CreatedAt), UpdatedAt: apiTime(m.UpdatedAt),
		WebURL: l.projectURL(p) + "/-/milestones/" + itoa(int(m.IID))}
	if m.DueDate != nil {
		d := m.DueDate.Time.Format(models.DateLayout)
		out.DueDate = &d
		// GitLab: expired when the due date is before today.
		today := time.Now().UTC().Truncate(24 * time.Hour)
		out.Expired = m.DueDate.Time.Before(today)
	}
	if m.StartDate != nil {
		d := m.StartDate.Time.Format(models.DateLayout)
		out.StartDate = &d
	}
	return out
}

// wikiExtensions are the file extensions of GitLab's wiki formats.
var wikiExtensions = map[string]string{"markdown": ".md", "rdoc": ".rdoc", "asciidoc": ".asciidoc", "org": ".org"}

// wikiBlobResult is a wiki page as GitLab's wiki_blobs scope shows it: a
// blob of the wiki repository (path = slug and the format's extension).
func wikiBlobResult(wp models.WikiPage, term string) *blobJSON {
	ext := wikiExtensions[wp.Format]
	if ext == "" {
		ext = ".md"
	}
	b := blobResult(models.RepositoryFile{ProjectID: wp.ProjectID, Ref: "main", FilePath: wp.Slug + ext, Content: wp.Content}, term)
	b.Basename = strings.TrimSuffix(b.Path, ext)
	return b
}

// blobJSON is GitLab's blob search result.
type blobJSON struct {
	Basename  string  `json:"basename"`
	Data      string  `json:"data"`
	Path      string  `json:"path"`
	Filename  string  `json:"filename"`
	ID        *string `json:"id"`
	Ref       string  `json:"ref"`
	Startline int     `json:"startline"`
	ProjectID int64   `json:"project_id"`
}

func blobResult(f models.RepositoryFile, term string) *blobJSON {
	lines := strings.Split(f.Content, "\n")
	at := 0
	if t := strings.ToLower(term); t != "" {
		for k, l := range lines {
			if strings.Contains(strings.ToLower(l), t) {
				at = k
				break
			}
		}
	}
	start := max(0, at-blobContext)
	end := min(len(lines), at+blobContext+1)
	return &blobJSON{Basename: strings.TrimSuffix(f.FilePath, path.Ext(f.FilePath)),
		Data: strings.Join(lines[start:end], "\n"), Path: f.FilePath, Filename: f.FilePath,
		Ref: f.Ref, Startline: start + 1, ProjectID: f.ProjectID}
}

// blobContext is how many lines around the first match a blob result
// shows.
const blobContext = 2
