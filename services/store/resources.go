package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// resourceChannel is subscriptions.ResourceChannel (the store does not
// import the hub).
const resourceChannel = "glmcp_resources"

// AnnounceResourceChange tells every serving instance that the resource
// with key changed (a resource key of package subscriptions, such as
// "r:7:main" after a ref moved). Database rows announce themselves through
// triggers (migration 20261201140000); this is for what the database does
// not hold, such as git refs. On PostgreSQL it is a NOTIFY on
// glmcp_resources; on the embedded store a row of resource_changes.
func (s *Resources) AnnounceResourceChange(ctx context.Context, key string) error {
	var err error
	if s.dialect == migrations.DialectPostgres {
		err = s.db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", resourceChannel, key).Error
	} else {
		err = s.db.WithContext(ctx).Exec("INSERT INTO resource_changes (resource) VALUES (?)", key).Error
	}
	if err != nil {
		return fmt.Errorf("announce change of %q: %w", key, translate(err))
	}
	return nil
}

// ResourceChange is one row of the embedded store's resource_changes.
type ResourceChange struct {
	ID       int64
	Resource string
}

// ResourceChangesAfter returns up to limit resource changes of the
// embedded store with an id above after, oldest first, and deletes every
// change up to the last one returned: one process serves an embedded
// store. With after < 0 it returns none and only the newest id, the
// place a new reader starts from. PostgreSQL has no such rows (NOTIFY
// delivers its changes); it returns none.
func (s *Resources) ResourceChangesAfter(ctx context.Context, after int64, limit int) ([]ResourceChange, int64, error) {
	if s.dialect == migrations.DialectPostgres {
		return nil, after, nil
	}
	db := s.db.WithContext(ctx)
	if after < 0 {
		var last int64
		if err := db.Raw("SELECT COALESCE(MAX(id), 0) FROM resource_changes").Scan(&last).Error; err != nil {
			return nil, 0, fmt.Errorf("read resource changes: %w", translate(err))
		}
		return nil, last, nil
	}
	var out []ResourceChange
	if err := db.Raw("SELECT id, resource FROM resource_changes WHERE id > ? ORDER BY id LIMIT ?", after, limit).
		Scan(&out).Error; err != nil {
		return nil, after, fmt.Errorf("read resource changes: %w", translate(err))
	}
	if len(out) == 0 {
		return nil, after, nil
	}
	last := out[len(out)-1].ID
	if err := db.Exec("DELETE FROM resource_changes WHERE id <= ?", last).Error; err != nil {
		return nil, after, fmt.Errorf("delete read resource changes: %w", translate(err))
	}
	return out, last, nil
}

// MemberProjectsAfter returns up to limit projects userID is a direct
// member of, with an id above afterID, ordered by id (keyset paging).
func (s *Resources) MemberProjectsAfter(ctx context.Context, userID, afterID int64, limit int) ([]models.Project, error) {
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
func (s *Resources) CompleteProjectPaths(ctx context.Context, viewer *models.User, prefix string, limit int) ([]string, error) {
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
func (s *Resources) CompleteIssueIIDs(ctx context.Context, viewer *models.User, projectID int64, prefix string, limit int) ([]int64, error) {
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
func (s *Resources) CompleteMergeRequestIIDs(ctx context.Context, projectID int64, prefix string, limit int) ([]int64, error) {
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
