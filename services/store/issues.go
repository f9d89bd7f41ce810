package store

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateIssue inserts i in project i.ProjectID with the next issue number
// of the project as its IID (any IID set by the caller is replaced), and
// links i.Assignees (only their IDs are read). It fills ID, IID and
// timestamps. State defaults to opened; a closed issue without ClosedAt is
// closed now. Everything is written in one transaction; concurrent calls
// get distinct, gap-free IIDs.
//
// An empty title, an unknown state, or a project, author or assignee that
// does not exist is models.ErrInvalidInput.
func (s *Issues) CreateIssue(ctx context.Context, i *models.Issue) error {
	return s.CreateWorkItem(ctx, i, nil)
}

// CreateWorkItem is CreateIssue for any work item type (i.WorkItemTypeID,
// Issue when 0), with its milestone (see milestoneFor) and, when parentID
// is set, its parent (see setParent), all in one transaction.
func (s *Issues) CreateWorkItem(ctx context.Context, i *models.Issue, parentID *int64) error {
	if err := s.prepareIssue(i); err != nil {
		return fmt.Errorf("create issue in project %d: %w", i.ProjectID, err)
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		if err := tx.Issues.milestoneFor(ctx, i); err != nil {
			return err
		}
		iid, err := tx.nextIID(ctx, i.ProjectID, usageIssues)
		if err != nil {
			return err
		}
		i.IID = iid
		if err := tx.conn(ctx).Omit(clause.Associations).Create(i).Error; err != nil {
			return translate(err)
		}
		if err := tx.insertUserLinks(ctx, "issue_assignees", "issue_id", i.ID, i.AssigneeIDs()); err != nil {
			return err
		}
		if parentID != nil {
			return tx.Issues.setParent(ctx, i, parentID)
		}
		return nil
	})
	if err != nil {
		i.ID, i.IID = 0, 0
		return fmt.Errorf("create issue in project %d: %w", i.ProjectID, err)
	}
	s.changedViews(projectViews(i.ProjectID))
	return nil
}

func (s *Issues) prepareIssue(i *models.Issue) error {
	if strings.TrimSpace(i.Title) == "" {
		return fmt.Errorf("empty title: %w", models.ErrInvalidInput)
	}
	switch i.State {
	case "":
		i.State = models.IssueOpened
	case models.IssueOpened, models.IssueClosed:
	default:
		return fmt.Errorf("state %q: %w", i.State, models.ErrInvalidInput)
	}
	if i.State == models.IssueClosed && i.ClosedAt == nil {
		now := s.clock()
		i.ClosedAt = &now
	}
	if i.Labels == nil {
		i.Labels = models.StringList{}
	}
	if i.WorkItemTypeID == 0 {
		i.WorkItemTypeID = models.TypeIssue
	}
	if err := datesOrdered(i.StartDate, i.DueDate); err != nil {
		return err
	}
	i.ID = 0
	return nil
}

// LoadIssue returns issue iid of project projectID with its author and
// assignees (ordered by user id), or models.ErrNotFound. It does not check
// permissions. It runs two statements: the issue, then its author and
// assignees together (see people).
func (s *Issues) LoadIssue(ctx context.Context, projectID, iid int64) (*models.Issue, error) {
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
func (s *Issues) LoadIssueCountingNotes(ctx context.Context, projectID, iid int64, includeInternal bool) (*models.Issue, int64, error) {
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
func (s *Issues) CountUserNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error) {
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

// CountUserNotesOf is CountUserNotes of many issues or merge requests at
// once, by id (none counted: absent), without internal notes.
func (s *Issues) CountUserNotesOf(ctx context.Context, typ models.NoteableType, noteableIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(noteableIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		NoteableID int64
		N          int64
	}
	err := s.conn(ctx).Model(&models.Note{}).Select("noteable_id, count(*) AS n").
		Where("noteable_type = ? AND noteable_id IN ? AND NOT system AND NOT internal", typ, noteableIDs).
		Group("noteable_id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("count notes of %d %s: %w", len(noteableIDs), typ, translate(err))
	}
	for _, r := range rows {
		out[r.NoteableID] = r.N
	}
	return out, nil
}

func orderByID(db *gorm.DB) *gorm.DB { return db.Order("id") }
