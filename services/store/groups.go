package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateGroup inserts g and fills its ID, FullPath (the parent's full path
// and g.Path) and timestamps. Visibility defaults to private and, as in
// GitLab, may not be wider than the parent group's. A full path already
// taken (ignoring case) is models.ErrConflict; a missing parent, an empty
// name or path, a path with "/" or an unknown visibility is
// models.ErrInvalidInput.
func (s *Groups) CreateGroup(ctx context.Context, g *models.Group) error {
	if err := s.prepareGroup(ctx, g); err != nil {
		return fmt.Errorf("create group %q: %w", g.Path, err)
	}
	g.ID = 0
	if err := s.conn(ctx).Create(g).Error; err != nil {
		return fmt.Errorf("create group %q: %w", g.FullPath, translate(err))
	}
	s.changedViews(allViews)
	return nil
}

// FindGroupByID returns the group with id, or models.ErrNotFound.
func (s *Groups) FindGroupByID(ctx context.Context, id int64) (*models.Group, error) {
	var g models.Group
	if err := s.conn(ctx).Where("id = ?", id).Take(&g).Error; err != nil {
		return nil, fmt.Errorf("find group %d: %w", id, translate(err))
	}
	return &g, nil
}

// FindGroupByFullPath returns the group at fullPath ("gitlab-org/ai"),
// ignoring case, or models.ErrNotFound.
func (s *Groups) FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error) {
	var g models.Group
	if err := s.conn(ctx).Where("lower(full_path) = lower(?)", fullPath).Take(&g).Error; err != nil {
		return nil, fmt.Errorf("find group %q: %w", fullPath, translate(err))
	}
	return &g, nil
}

func (s *Groups) prepareGroup(ctx context.Context, g *models.Group) error {
	if strings.TrimSpace(g.Name) == "" || !validPathSegment(g.Path) {
		return fmt.Errorf("name and a path without \"/\" are required: %w", models.ErrInvalidInput)
	}
	if g.Visibility == "" {
		g.Visibility = models.VisibilityPrivate
	}
	if !g.Visibility.Valid() {
		return fmt.Errorf("visibility %q: %w", g.Visibility, models.ErrInvalidInput)
	}
	g.FullPath = g.Path
	if g.ParentID == nil {
		return nil
	}
	parent, err := s.FindGroupByID(ctx, *g.ParentID)
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("parent group %d does not exist: %w", *g.ParentID, models.ErrInvalidInput)
	}
	if err != nil {
		return err
	}
	if g.Visibility.Rank() > parent.Visibility.Rank() {
		return fmt.Errorf("visibility %s is wider than parent group's %s: %w", g.Visibility, parent.Visibility, models.ErrInvalidInput)
	}
	g.FullPath = parent.FullPath + "/" + g.Path
	return nil
}

// validPathSegment reports whether p can be one segment of a GitLab path:
// letters, digits, '_', '-' and '.', not starting with '-' or '.', not
// ending with '.', '.git' or '.atom' (GitLab's path rules).
func validPathSegment(p string) bool {
	if p == "" || len(p) > 255 || strings.HasSuffix(p, ".") || strings.HasSuffix(p, ".git") || strings.HasSuffix(p, ".atom") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case (c == '-' || c == '.') && i > 0:
		default:
			return false
		}
	}
	return true
}

// groupMemberSQL is a condition on a namespaces row aliased alias, true
// when viewer is a member of that group, of one of its ancestors or
// subgroups, or of a project below it (GitLab's authorized groups).
func groupMemberSQL(alias string, viewer *models.User) (string, []any) {
	a := alias + "."
	return "(EXISTS (SELECT 1 FROM namespace_members gm JOIN namespaces gn ON gn.id = gm.namespace_id " +
			"WHERE gm.user_id = ? AND (gn.id = " + a + "id OR " +
			"substr(lower(" + a + "full_path), 1, length(gn.full_path) + 1) = lower(gn.full_path) || '/' OR " +
			"substr(lower(gn.full_path), 1, length(" + a + "full_path) + 1) = lower(" + a + "full_path) || '/')) " +
			"OR EXISTS (SELECT 1 FROM project_authorizations gpa JOIN projects gp ON gp.id = gpa.project_id " +
			"WHERE gpa.user_id = ? AND substr(lower(gp.path_with_namespace), 1, length(" + a + "full_path) + 1) = lower(" + a + "full_path) || '/'))",
		[]any{viewer.ID, viewer.ID}
}

// ListGroups returns one page of groups (see models.GroupQuery) ordered by
// id, after q.AfterID, at most q.Limit+1 (the extra row tells the caller
// that more follow).
func (s *Groups) ListGroups(ctx context.Context, q models.GroupQuery) ([]models.Group, error) {
	out := []models.Group{}
	if !q.Viewer.Active() {
		return out, nil
	}
	db := s.conn(ctx).Table("namespaces").Where("namespaces.id > ?", q.AfterID)
	member, margs := groupMemberSQL("namespaces", q.Viewer)
	switch {
	case q.ParentID == 0:
		if !q.IncludeSubgroups {
			db = db.Where("namespaces.parent_id IS NULL")
		}
		db = db.Where(member, margs...)
	default:
		if q.IncludeSubgroups {
			db = db.Where("substr(lower(namespaces.full_path), 1, length(pg.full_path) + 1) = lower(pg.full_path) || '/'").
				Joins("JOIN namespaces pg ON pg.id = ?", q.ParentID)
		} else {
			db = db.Where("namespaces.parent_id = ?", q.ParentID)
		}
		if !q.Viewer.Admin {
			db = db.Where("(namespaces.visibility IN ('public', 'internal') OR "+member+")", margs...)
		}
	}
	if q.Visibility != "" {
		db = db.Where("namespaces.visibility = ?", q.Visibility)
	}
	db = matchAny(db, q.Search, "namespaces.name", "namespaces.full_path")
	if err := db.Select("namespaces.*").Order("namespaces.id").Limit(q.Limit + 1).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list groups: %w", translate(err))
	}
	return out, nil
}
