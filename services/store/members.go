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
func (s *Projects) AddProjectMember(ctx context.Context, m *models.ProjectMember) error {
	if !m.AccessLevel.Valid() {
		return fmt.Errorf("add member %d to project %d: access level %d: %w", m.UserID, m.ProjectID, m.AccessLevel, models.ErrInvalidInput)
	}
	m.ID = 0
	if err := s.conn(ctx).Create(m).Error; err != nil {
		return fmt.Errorf("add member %d to project %d: %w", m.UserID, m.ProjectID, translate(err))
	}
	s.changedViews(projectViews(m.ProjectID))
	return nil
}

// FindProjectMember returns userID's direct membership of projectID, or
// models.ErrNotFound for a non-member.
func (s *Projects) FindProjectMember(ctx context.Context, projectID, userID int64) (*models.ProjectMember, error) {
	var m models.ProjectMember
	err := s.conn(ctx).Where("project_id = ? AND user_id = ?", projectID, userID).Take(&m).Error
	if err != nil {
		return nil, fmt.Errorf("find member %d of project %d: %w", userID, projectID, translate(err))
	}
	return &m, nil
}

// AddGroupMember makes m.UserID a member of group m.NamespaceID with
// m.AccessLevel (and so of everything below the group) and fills m's ID
// and timestamps. Errors as AddProjectMember.
func (s *Projects) AddGroupMember(ctx context.Context, m *models.GroupMember) error {
	if !m.AccessLevel.Valid() {
		return fmt.Errorf("add member %d to group %d: access level %d: %w", m.UserID, m.NamespaceID, m.AccessLevel, models.ErrInvalidInput)
	}
	m.ID = 0
	if err := s.conn(ctx).Create(m).Error; err != nil {
		return fmt.Errorf("add member %d to group %d: %w", m.UserID, m.NamespaceID, translate(err))
	}
	s.changedViews(userViews(m.UserID))
	return nil
}

// ListProjectMembers returns one page of the members of projectID ordered
// by user id, after afterUserID, at most limit+1 (the extra row tells the
// caller that more follow). Direct members only, or with inherited (members
// of the project's group and its ancestors too) every user with a role,
// at their highest role. query filters on username and name (substring,
// case-insensitive). Blocked and deactivated users are listed as GitLab
// lists them.
func (s *Projects) ListProjectMembers(ctx context.Context, projectID int64, inherited bool, query string, afterUserID int64, limit int) ([]models.Member, error) {
	source := "project_members"
	if inherited {
		source = "project_authorizations"
	}
	type row struct {
		models.User
		MemberAccessLevel models.AccessLevel
	}
	db := s.conn(ctx).Table("users").
		Select("users.*, m.access_level AS member_access_level").
		Joins("JOIN "+source+" m ON m.user_id = users.id AND m.project_id = ?", projectID).
		Where("users.id > ?", afterUserID)
	db = matchAny(db, query, "users.username", "users.name")
	var rows []row
	if err := db.Order("users.id").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list members of project %d: %w", projectID, translate(err))
	}
	out := make([]models.Member, len(rows))
	for k, r := range rows {
		out[k] = models.Member{User: r.User, AccessLevel: r.MemberAccessLevel}
	}
	return out, nil
}

// GroupAccessLevel returns userID's role in group groupID: the highest of
// its memberships of the group and of the groups above it (GitLab's
// max_member_access_for_user), models.NoAccess for a non-member. Project
// memberships do not count. A missing group is models.ErrNotFound.
func (s *Projects) GroupAccessLevel(ctx context.Context, groupID, userID int64) (models.AccessLevel, error) {
	g, err := s.FindGroupByID(ctx, groupID)
	if err != nil {
		return models.NoAccess, err
	}
	var level *int64
	err = s.conn(ctx).Table("namespace_members nm").Joins("JOIN namespaces n ON n.id = nm.namespace_id").
		Where("nm.user_id = ?", userID).
		Where("lower(n.full_path) = lower(?) OR substr(lower(?), 1, length(n.full_path) + 1) = lower(n.full_path) || '/'",
			g.FullPath, g.FullPath).
		Select("MAX(nm.access_level)").Scan(&level).Error
	if err != nil {
		return models.NoAccess, fmt.Errorf("role of user %d in group %d: %w", userID, groupID, translate(err))
	}
	if level == nil {
		return models.NoAccess, nil
	}
	return models.AccessLevel(*level), nil
}
