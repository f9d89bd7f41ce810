package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// LoadIssue returns issue iid of project projectID with its author and
// assignees (ordered by user id), or models.ErrNotFound. It does not check
// permissions. It runs two statements: the issue, then its author and
// assignees together (see people).
func (s *Store) LoadIssue(ctx context.Context, projectID, iid int64) (*models.Issue, error) {
	var i models.Issue
	if err := s.conn(ctx).Where("project_id = ? AND iid = ?", projectID, iid).Take(&i).Error; err != nil {
		return nil, fmt.Errorf("load issue #%d of project %d: %w", iid, projectID, translate(err))
	}
	ppl, err := s.people(ctx, i.AuthorID, i.ID, issueAssignees)
	if err != nil {
		return nil, fmt.Errorf("load author and assignees of issue %d: %w", i.ID, err)
	}
	i.Author, i.Assignees = ppl.author, ppl.linked[issueAssignees.role]
	return &i, nil
}

// CountUserNotes counts the non-system notes of a noteable, internal ones
// only when includeInternal (GitLab's user_notes_count as the viewer sees
// it).
func (s *Store) CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error) {
	var n int64
	q := s.conn(ctx).Model(&models.Note{}).
		Where("noteable_type = ? AND noteable_id = ? AND NOT system", typ, noteableID)
	if !includeInternal {
		q = q.Where("NOT internal")
	}
	if err := q.Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count notes of %s %d: %w", typ, noteableID, translate(err))
	}
	return n, nil
}

func orderByID(db *gorm.DB) *gorm.DB { return db.Order("id") }
