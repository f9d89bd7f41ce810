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
func (s *Store) CreateGroup(ctx context.Context, g *models.Group) error {
	if err := s.prepareGroup(ctx, g); err != nil {
		return fmt.Errorf("create group %q: %w", g.Path, err)
	}
	g.ID = 0
	if err := s.conn(ctx).Create(g).Error; err != nil {
		return fmt.Errorf("create group %q: %w", g.FullPath, translate(err))
	}
	return nil
}

// FindGroupByID returns the group with id, or models.ErrNotFound.
func (s *Store) FindGroupByID(ctx context.Context, id int64) (*models.Group, error) {
	var g models.Group
	if err := s.conn(ctx).Where("id = ?", id).Take(&g).Error; err != nil {
		return nil, fmt.Errorf("find group %d: %w", id, translate(err))
	}
	return &g, nil
}

// FindGroupByFullPath returns the group at fullPath ("gitlab-org/ai"),
// ignoring case, or models.ErrNotFound.
func (s *Store) FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error) {
	var g models.Group
	if err := s.conn(ctx).Where("lower(full_path) = lower(?)", fullPath).Take(&g).Error; err != nil {
		return nil, fmt.Errorf("find group %q: %w", fullPath, translate(err))
	}
	return &g, nil
}

func (s *Store) prepareGroup(ctx context.Context, g *models.Group) error {
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
