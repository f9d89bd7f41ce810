package store

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// AddProjectMember makes m.UserID a member of m.ProjectID with
// m.AccessLevel and fills m's ID and timestamps. An existing membership is
// models.ErrConflict; an access level outside Guest..Owner, or a project or
// user that does not exist, is models.ErrInvalidInput.
func (s *Store) AddProjectMember(ctx context.Context, m *models.ProjectMember) error {
	if !m.AccessLevel.Valid() {
		return fmt.Errorf("add member %d to project %d: access level %d: %w", m.UserID, m.ProjectID, m.AccessLevel, models.ErrInvalidInput)
	}
	m.ID = 0
	if err := s.conn(ctx).Create(m).Error; err != nil {
		return fmt.Errorf("add member %d to project %d: %w", m.UserID, m.ProjectID, translate(err))
	}
	return nil
}

// FindProjectMember returns userID's direct membership of projectID, or
// models.ErrNotFound for a non-member.
func (s *Store) FindProjectMember(ctx context.Context, projectID, userID int64) (*models.ProjectMember, error) {
	var m models.ProjectMember
	err := s.conn(ctx).Where("project_id = ? AND user_id = ?", projectID, userID).Take(&m).Error
	if err != nil {
		return nil, fmt.Errorf("find member %d of project %d: %w", userID, projectID, translate(err))
	}
	return &m, nil
}
