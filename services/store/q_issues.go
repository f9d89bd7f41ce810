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

// LoadIssueCountingNotes is LoadIssue together with CountUserNotes of the
// issue: the count is a column of the issue's statement, so get_issue
// reads the issue, its note count, its author and assignees in two
// statements instead of three (each one a round trip on PostgreSQL).
func (s *Store) LoadIssueCountingNotes(ctx context.Context, projectID, iid int64, includeInternal bool) (*models.Issue, int64, error) {
	count := userNotesCount
	if includeInternal {
		count = userNotesCountWithInternal
	}
	var row struct {
		models.Issue
		UserNotesCount int64
	}
	err := s.conn(ctx).Table("issues").Select("issues.*, "+count, models.NoteableIssue).
		Where("project_id = ? AND iid = ?", projectID, iid).Take(&row).Error
	if err != nil {
		return nil, 0, fmt.Errorf("load issue #%d of project %d: %w", iid, projectID, translate(err))
	}
	i := row.Issue
	ppl, err := s.people(ctx, i.AuthorID, i.ID, issueAssignees)
	if err != nil {
		return nil, 0, fmt.Errorf("load author and assignees of issue %d: %w", i.ID, err)
	}
	i.Author, i.Assignees = ppl.author, ppl.linked[issueAssignees.role]
	return &i, row.UserNotesCount, nil
}

// The user_notes_count column of LoadIssueCountingNotes: CountUserNotes
// of the row's issue (one parameter: the noteable type).
const (
	userNotesCount             = "(SELECT count(*) FROM notes WHERE notes.noteable_type = ? AND notes.noteable_id = issues.id AND NOT notes.system AND NOT notes.internal) AS user_notes_count"
	userNotesCountWithInternal = "(SELECT count(*) FROM notes WHERE notes.noteable_type = ? AND notes.noteable_id = issues.id AND NOT notes.system) AS user_notes_count"
)

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
