package store

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// LoadProjects returns the projects with the given ids (those that exist),
// ordered by id.
func (s *Store) LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error) {
	out := []models.Project{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.conn(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("load projects: %w", translate(err))
	}
	return out, nil
}

// HasMembershipInGroup reports whether userID is a member of the group at
// fullPath, of one of its ancestors or subgroups, or (directly or through
// a group) of a project in it or its subgroups, which makes a private group
// visible to that user, as in GitLab.
func (s *Store) HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error) {
	var n int64
	scope, args := scopeProjectsSQL(0, fullPath)
	err := s.conn(ctx).Table("project_authorizations").
		Where("user_id = ? AND project_id IN (SELECT projects.id FROM projects WHERE "+scope+")",
			append([]any{userID}, args...)...).
		Count(&n).Error
	if err == nil && n == 0 {
		err = s.conn(ctx).Table("namespace_members nm").Joins("JOIN namespaces n ON n.id = nm.namespace_id").
			Where("nm.user_id = ?", userID).
			Where("lower(n.full_path) = lower(?) OR "+
				"substr(lower(n.full_path), 1, length(?) + 1) = lower(?) || '/' OR "+
				"substr(lower(?), 1, length(n.full_path) + 1) = lower(n.full_path) || '/'",
				fullPath, fullPath, fullPath, fullPath).
			Count(&n).Error
	}
	if err != nil {
		return false, fmt.Errorf("memberships of user %d in group %q: %w", userID, fullPath, translate(err))
	}
	return n > 0, nil
}

// VisibleProjectIDs returns the ids of the projects viewer may read in the
// group at groupPath and its subgroups, ordered by id.
func (s *Store) VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error) {
	ids := []int64{}
	q := withProjects(s.conn(ctx).Table("projects"), "projects.id", viewer, 0, groupPath)
	if err := q.Order("projects.id").Pluck("projects.id", &ids).Error; err != nil {
		return nil, fmt.Errorf("visible projects in %q: %w", groupPath, translate(err))
	}
	return ids, nil
}

// ProjectAccessLevel returns userID's effective role in projectID: the
// highest of its direct membership and its memberships of the project's
// group and the group's ancestors (the project_authorizations view), or
// models.NoAccess for a user who holds none. It does not check that the
// project exists.
func (s *Store) ProjectAccessLevel(ctx context.Context, projectID, userID int64) (models.AccessLevel, error) {
	var levels []models.AccessLevel
	err := s.conn(ctx).Table("project_authorizations").Where("project_id = ? AND user_id = ?", projectID, userID).
		Limit(1).Pluck("access_level", &levels).Error
	if err != nil {
		return models.NoAccess, fmt.Errorf("role of user %d in project %d: %w", userID, projectID, translate(err))
	}
	if len(levels) == 0 {
		return models.NoAccess, nil
	}
	return levels[0], nil
}

// FindProjectWithRoleByID returns the project with id together with
// userID's role in it (direct or inherited from a group) (models.NoAccess for a non-member), read in
// one statement, or models.ErrNotFound. It does not check permissions.
func (s *Store) FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error) {
	p, level, err := s.findProjectWithRole(ctx, userID, "projects.id = ?", id)
	if err != nil {
		return nil, models.NoAccess, fmt.Errorf("find project %d: %w", id, err)
	}
	return p, level, nil
}

// FindProjectWithRoleByPath is FindProjectWithRoleByID for the project at
// pathWithNamespace ("gitlab-org/gitlab-mcp"), ignoring case.
func (s *Store) FindProjectWithRoleByPath(ctx context.Context, pathWithNamespace string, userID int64) (*models.Project, models.AccessLevel, error) {
	p, level, err := s.findProjectWithRole(ctx, userID, "lower(projects.path_with_namespace) = lower(?)", pathWithNamespace)
	if err != nil {
		return nil, models.NoAccess, fmt.Errorf("find project %q: %w", pathWithNamespace, err)
	}
	return p, level, nil
}

// projectWithRole is a project row with the caller's membership joined.
type projectWithRole struct {
	models.Project
	MemberAccessLevel models.AccessLevel
}

// findProjectWithRole reads the project matching cond (on the projects
// table) and userID's access level in it, with one LEFT JOIN on the
// view project_authorizations (direct and inherited memberships).
func (s *Store) findProjectWithRole(ctx context.Context, userID int64, cond string, arg any) (*models.Project, models.AccessLevel, error) {
	var row projectWithRole
	err := s.conn(ctx).Table("projects").
		Select("projects.*, COALESCE(pm.access_level, 0) AS member_access_level").
		Joins("LEFT JOIN project_authorizations pm ON pm.project_id = projects.id AND pm.user_id = ?", userID).
		Where(cond, arg).Take(&row).Error
	if err != nil {
		return nil, models.NoAccess, translate(err)
	}
	return &row.Project, row.MemberAccessLevel, nil
}
