package store

import (
	"context"
	"fmt"
	"strings"

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
func (s *Store) CreateIssue(ctx context.Context, i *models.Issue) error {
	return s.CreateWorkItem(ctx, i, nil)
}

// CreateWorkItem is CreateIssue for any work item type (i.WorkItemTypeID,
// Issue when 0), with its milestone (see milestoneFor) and, when parentID
// is set, its parent (see setParent), all in one transaction.
func (s *Store) CreateWorkItem(ctx context.Context, i *models.Issue, parentID *int64) error {
	if err := s.prepareIssue(i); err != nil {
		return fmt.Errorf("create issue in project %d: %w", i.ProjectID, err)
	}
	err := s.WithTx(ctx, func(tx *Store) error {
		if err := tx.milestoneFor(ctx, i); err != nil {
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
			return tx.setParent(ctx, i, parentID)
		}
		return nil
	})
	if err != nil {
		i.ID, i.IID = 0, 0
		return fmt.Errorf("create issue in project %d: %w", i.ProjectID, err)
	}
	return nil
}

func (s *Store) prepareIssue(i *models.Issue) error {
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
