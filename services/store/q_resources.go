package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// The queries in this file serve MCP resources/list and completion/complete:
// small, bounded, keyset-paged reads that apply the viewer's read rules in
// SQL (see q_visibility.go), so a page or a completion never counts or shows
// what the viewer may not see.

// MemberProjectsAfter returns up to limit projects userID is a direct
// member of, with an id above afterID, ordered by id (keyset paging).
func (s *Store) MemberProjectsAfter(ctx context.Context, userID, afterID int64, limit int) ([]models.Project, error) {
	out := []models.Project{}
	err := s.conn(ctx).
		Where("projects.id > ? AND projects.id IN (SELECT pm.project_id FROM project_members pm WHERE pm.user_id = ?)", afterID, userID).
		Order("projects.id").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("member projects of user %d: %w", userID, translate(err))
	}
	return out, nil
}

// CompleteProjectPaths returns up to limit paths (path_with_namespace) of
// projects viewer may read that start with prefix (case-insensitively),
// in path order.
func (s *Store) CompleteProjectPaths(ctx context.Context, viewer *models.User, prefix string, limit int) ([]string, error) {
	out := []string{}
	q := withProjects(s.conn(ctx).Table("projects"), "projects.id", viewer, 0, "")
	err := q.Where("LOWER(projects.path_with_namespace) LIKE ? ESCAPE '\\'", likeEscape(strings.ToLower(prefix))+"%").
		Order("projects.path_with_namespace").Limit(limit).Pluck("projects.path_with_namespace", &out).Error
	if err != nil {
		return nil, fmt.Errorf("complete project paths: %w", translate(err))
	}
	return out, nil
}

// CompleteIssueIIDs returns up to limit iids of the issues viewer may read
// in projectID whose iid, written in decimal, starts with prefix, newest
// first. The caller has checked that viewer may read the project.
func (s *Store) CompleteIssueIIDs(ctx context.Context, viewer *models.User, projectID int64, prefix string, limit int) ([]int64, error) {
	vis, args := visibleIssuesSQL(viewer, "issues")
	out := []int64{}
	q := s.conn(ctx).Table("issues").Where("issues.project_id = ?", projectID).Where(vis, args...)
	if prefix != "" {
		q = q.Where("CAST(issues.iid AS TEXT) LIKE ?", likeEscape(prefix)+"%")
	}
	if err := q.Order("issues.iid DESC").Limit(limit).Pluck("issues.iid", &out).Error; err != nil {
		return nil, fmt.Errorf("complete issue iids: %w", translate(err))
	}
	return out, nil
}

// CompleteMergeRequestIIDs is CompleteIssueIIDs for merge requests. The
// caller has checked that viewer may read the project's code.
func (s *Store) CompleteMergeRequestIIDs(ctx context.Context, projectID int64, prefix string, limit int) ([]int64, error) {
	out := []int64{}
	q := s.conn(ctx).Table("merge_requests").Where("merge_requests.project_id = ?", projectID)
	if prefix != "" {
		q = q.Where("CAST(merge_requests.iid AS TEXT) LIKE ?", likeEscape(prefix)+"%")
	}
	if err := q.Order("merge_requests.iid DESC").Limit(limit).Pluck("merge_requests.iid", &out).Error; err != nil {
		return nil, fmt.Errorf("complete merge request iids: %w", translate(err))
	}
	return out, nil
}
