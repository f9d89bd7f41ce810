package gitlab

import (
	"context"
	"errors"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

type projectJSON struct {
	ID                int64   `json:"id"`
	PathWithNamespace string  `json:"path_with_namespace"`
	DefaultBranch     *string `json:"default_branch"`
	Visibility        string  `json:"visibility"`
	WebURL            string  `json:"web_url"`
	// ForkedFromProject is set for a fork whose source the caller may
	// read (GitLab's project JSON).
	ForkedFromProject *forkedFromJSON `json:"forked_from_project,omitempty"`
}

// forkedFromJSON is GitLab's forked_from_project (Entities::BasicProjectDetails,
// the fields glmcp has).
type forkedFromJSON struct {
	ID                int64     `json:"id"`
	Description       string    `json:"description"`
	Name              string    `json:"name"`
	NameWithNamespace string    `json:"name_with_namespace"`
	Path              string    `json:"path"`
	PathWithNamespace string    `json:"path_with_namespace"`
	CreatedAt         time.Time `json:"created_at"`
	DefaultBranch     string    `json:"default_branch"`
	Visibility        string    `json:"visibility"`
	WebURL            string    `json:"web_url"`
}

// projectFinder is what projectJSONOf reads: the project a fork comes from,
// with the caller's role, and its groups' names.
type projectFinder interface {
	FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error)
	groupFinder
}

// projectJSONOf renders p as get_project does, with forked_from_project
// when p is a fork of a project u may read (GitLab's rule).
func projectJSONOf(ctx context.Context, st projectFinder, l links, u *models.User, p *models.Project) (projectJSON, error) {
	out := projectJSON{ID: p.ID, PathWithNamespace: p.PathWithNamespace, Visibility: string(p.Visibility),
		WebURL: l.projectURL(p)}
	if p.DefaultBranch != "" {
		out.DefaultBranch = &p.DefaultBranch
	}
	if p.ForkedFromProjectID == nil {
		return out, nil
	}
	src, level, err := st.FindProjectWithRoleByID(ctx, *p.ForkedFromProjectID, u.ID)
	if errors.Is(err, models.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	if !access.CanReadProject(u, src, level) {
		return out, nil
	}
	space := strings.TrimSuffix(src.PathWithNamespace, "/"+src.Path)
	groups, err := namespaces(ctx, st, map[string]*models.Group{}, []string{space})
	if err != nil {
		return out, err
	}
	out.ForkedFromProject = &forkedFromJSON{ID: src.ID, Description: src.Description, Name: src.Name,
		NameWithNamespace: fullName(groups, space) + " / " + src.Name, Path: src.Path,
		PathWithNamespace: src.PathWithNamespace, CreatedAt: src.CreatedAt.UTC(), DefaultBranch: src.DefaultBranch,
		Visibility: string(src.Visibility), WebURL: l.projectURL(src)}
	return out, nil
}
