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

// HasMembershipInGroup reports whether userID is a member of any project
// in the group at fullPath or its subgroups (which makes a private group
// visible to that user, as in GitLab).
func (s *Store) HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error) {
	var n int64
	scope, args := scopeProjectsSQL(0, fullPath)
	err := s.conn(ctx).Table("project_members").
		Where("user_id = ? AND project_id IN (SELECT projects.id FROM projects WHERE "+scope+")",
			append([]any{userID}, args...)...).
		Count(&n).Error
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
