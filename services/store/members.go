package store

import (
	"context"
	"errors"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// AddProjectMember makes m.UserID a member of m.ProjectID with
// m.AccessLevel and fills m's ID and timestamps. An existing membership is
// models.ErrConflict; an access level outside Guest..Owner, or a project or
// user that does not exist, is models.ErrInvalidInput.
func (s *Groups) AddProjectMember(ctx context.Context, m *models.ProjectMember) error {
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
func (s *Groups) FindProjectMember(ctx context.Context, projectID, userID int64) (*models.ProjectMember, error) {
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
func (s *Groups) AddGroupMember(ctx context.Context, m *models.GroupMember) error {
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
func (s *Groups) ListProjectMembers(ctx context.Context, projectID int64, inherited bool, query string, afterUserID int64, limit int) ([]models.Member, error) {
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
func (s *Groups) GroupAccessLevel(ctx context.Context, groupID, userID int64) (models.AccessLevel, error) {
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

// HasMembershipInGroup reports whether userID is a member of the group at
// fullPath, of one of its ancestors or subgroups, or (directly or through
// a group) of a project in it or its subgroups, which makes a private group
// visible to that user, as in GitLab.
func (s *Groups) HasMembershipInGroup(ctx context.Context, fullPath string, userID int64) (bool, error) {
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

// ProjectAccessLevel returns userID's effective role in projectID: the
// highest of its direct membership and its memberships of the project's
// group and the group's ancestors (the project_authorizations view), or
// models.NoAccess for a user who holds none. It does not check that the
// project exists.
func (s *Groups) ProjectAccessLevel(ctx context.Context, projectID, userID int64) (models.AccessLevel, error) {
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

// ProjectAccessLevels returns the effective roles in projectID of the
// userIDs that hold one, in one statement (lockdown reads the authors of
// a page of notes this way); a user missing from the map has none.
func (s *Groups) ProjectAccessLevels(ctx context.Context, projectID int64, userIDs []int64) (map[int64]models.AccessLevel, error) {
	out := make(map[int64]models.AccessLevel, len(userIDs))
	if len(userIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		UserID      int64
		AccessLevel models.AccessLevel
	}
	err := s.conn(ctx).Table("project_authorizations").Select("user_id, access_level").
		Where("project_id = ? AND user_id IN ?", projectID, userIDs).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("roles of %d users in project %d: %w", len(userIDs), projectID, translate(err))
	}
	for _, r := range rows {
		if r.AccessLevel > out[r.UserID] {
			out[r.UserID] = r.AccessLevel
		}
	}
	return out, nil
}

// moveMembership gives from's membership of the project to to (to keeps
// the higher of the two roles when a member already).
func (s *Groups) moveMembership(ctx context.Context, projectID, from, to int64) (int64, error) {
	db := s.conn(ctx)
	var rows []models.ProjectMember
	if err := db.Where("project_id = ? AND user_id IN ?", projectID, []int64{from, to}).Find(&rows).Error; err != nil {
		return 0, translate(err)
	}
	var old, cur *models.ProjectMember
	for k := range rows {
		if rows[k].UserID == from {
			old = &rows[k]
		} else {
			cur = &rows[k]
		}
	}
	switch {
	case old == nil:
		return 0, nil
	case cur == nil:
		err := db.Exec("UPDATE project_members SET user_id = ?, updated_at = ? WHERE id = ?", to, s.clock(), old.ID).Error
		return 1, translate(err)
	}
	if old.AccessLevel > cur.AccessLevel {
		if err := db.Exec("UPDATE project_members SET access_level = ?, updated_at = ? WHERE id = ?", old.AccessLevel, s.clock(), cur.ID).Error; err != nil {
			return 0, translate(err)
		}
	}
	return 1, translate(db.Exec("DELETE FROM project_members WHERE id = ?", old.ID).Error)
}

// grantRole makes user a member of the project with level, or raises
// its direct role to level; 1 when it changed anything.
func (s *Groups) grantRole(ctx context.Context, projectID, user int64, level models.AccessLevel) (int64, error) {
	db := s.conn(ctx)
	var cur models.ProjectMember
	err := db.Where("project_id = ? AND user_id = ?", projectID, user).Take(&cur).Error
	switch {
	case errors.Is(translate(err), models.ErrNotFound):
		now := s.clock()
		m := models.ProjectMember{ProjectID: projectID, UserID: user, AccessLevel: level, CreatedAt: now, UpdatedAt: now}
		return 1, translate(db.Create(&m).Error)
	case err != nil:
		return 0, translate(err)
	case cur.AccessLevel >= level:
		return 0, nil
	}
	return 1, translate(db.Exec("UPDATE project_members SET access_level = ?, updated_at = ? WHERE id = ?", level, s.clock(), cur.ID).Error)
}
