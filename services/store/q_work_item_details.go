package store

import (
	"context"
	"fmt"
	"strconv"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// CountNotes counts the notes of a noteable, system notes included and
// internal ones only when includeInternal (GitLab's notes connection
// count).
func (s *Store) CountNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error) {
	var n int64
	q := s.conn(ctx).Model(&models.Note{}).Where("noteable_type = ? AND noteable_id = ?", typ, noteableID)
	if !includeInternal {
		q = q.Where("NOT internal")
	}
	if err := q.Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count notes of %s %d: %w", typ, noteableID, translate(err))
	}
	return n, nil
}

// RelatedMergeRequests returns the merge requests of project projectID
// whose title or description references its work item iid ("#12", "Closes
// #12"; not "#123"), by id ascending after afterID, at most limit, with
// their authors, and whether more follow. It does not check permissions.
//
// The match is a regular expression on PostgreSQL and a GLOB on SQLite,
// both anchored so that the digits after "#" are exactly iid.
func (s *Store) RelatedMergeRequests(ctx context.Context, projectID, iid, afterID int64, limit int) ([]models.MergeRequest, bool, error) {
	out := []models.MergeRequest{}
	ref := "#" + strconv.FormatInt(iid, 10)
	q := s.conn(ctx).Preload("Author").Where("project_id = ? AND id > ?", projectID, afterID)
	if s.dialect == migrations.DialectPostgres {
		q = q.Where("(title || ' ' || description) ~ ?", ref+"([^0-9]|$)")
	} else {
		q = q.Where("(' ' || title || ' ' || description || ' ') GLOB ?", "*"+ref+"[^0-9]*")
	}
	if err := q.Order("id").Limit(limit + 1).Find(&out).Error; err != nil {
		return nil, false, fmt.Errorf("merge requests related to #%d of project %d: %w", iid, projectID, translate(err))
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// FindLabelsByID returns the labels of project projectID whose ids are in
// ids, ordered by id; ids of other projects' labels are left out.
func (s *Store) FindLabelsByID(ctx context.Context, projectID int64, ids []int64) ([]models.Label, error) {
	out := []models.Label{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.conn(ctx).Where("project_id = ? AND id IN ?", projectID, ids).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("find labels of project %d by id: %w", projectID, translate(err))
	}
	return out, nil
}
