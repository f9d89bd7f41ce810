package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

const usageMilestones = "milestones"

// CreateMilestone inserts m with the project's next milestone number as its
// IID and fills ID, IID and timestamps. State defaults to active. A title
// already used in the project is models.ErrConflict; an empty title, an
// unknown state, a start date after the due date or a missing project is
// models.ErrInvalidInput.
func (s *Issues) CreateMilestone(ctx context.Context, m *models.Milestone) error {
	if strings.TrimSpace(m.Title) == "" {
		return fmt.Errorf("create milestone in project %d: empty title: %w", m.ProjectID, models.ErrInvalidInput)
	}
	switch m.State {
	case "":
		m.State = models.MilestoneActive
	case models.MilestoneActive, models.MilestoneClosed:
	default:
		return fmt.Errorf("create milestone %q: state %q: %w", m.Title, m.State, models.ErrInvalidInput)
	}
	m.ID = 0
	err := s.st.WithTx(ctx, func(tx *Store) error {
		iid, err := tx.nextIID(ctx, m.ProjectID, usageMilestones)
		if err != nil {
			return err
		}
		m.IID = iid
		return translate(tx.conn(ctx).Create(m).Error)
	})
	if err != nil {
		m.ID, m.IID = 0, 0
		return fmt.Errorf("create milestone %q in project %d: %w", m.Title, m.ProjectID, err)
	}
	return nil
}

// FindMilestone returns milestone id if it belongs to project projectID,
// else models.ErrNotFound.
func (s *Issues) FindMilestone(ctx context.Context, projectID, id int64) (*models.Milestone, error) {
	var m models.Milestone
	if err := s.conn(ctx).Where("project_id = ? AND id = ?", projectID, id).Take(&m).Error; err != nil {
		return nil, fmt.Errorf("find milestone %d of project %d: %w", id, projectID, translate(err))
	}
	return &m, nil
}

// FindMilestoneByTitle returns the milestone of project projectID titled
// title, or models.ErrNotFound.
func (s *Issues) FindMilestoneByTitle(ctx context.Context, projectID int64, title string) (*models.Milestone, error) {
	var m models.Milestone
	if err := s.conn(ctx).Where("project_id = ? AND title = ?", projectID, title).Take(&m).Error; err != nil {
		return nil, fmt.Errorf("find milestone %q of project %d: %w", title, projectID, translate(err))
	}
	return &m, nil
}

// milestoneFor settles i's milestone inside a transaction: MilestoneID
// names a milestone of i's project (its title is copied to i.Milestone);
// a title without an id finds the project's milestone of that title,
// creating it when there is none (imports and the demo world name
// milestones by title). Neither clears both.
func (s *Issues) milestoneFor(ctx context.Context, i *models.Issue) error {
	switch {
	case i.MilestoneID != nil:
		m, err := s.FindMilestone(ctx, i.ProjectID, *i.MilestoneID)
		if err != nil {
			return fmt.Errorf("milestone %d: %w", *i.MilestoneID, models.ErrInvalidInput)
		}
		i.Milestone = m.Title
	case i.Milestone != "":
		m, err := s.FindMilestoneByTitle(ctx, i.ProjectID, i.Milestone)
		if err != nil {
			m = &models.Milestone{ProjectID: i.ProjectID, Title: i.Milestone}
			if err := s.CreateMilestone(ctx, m); err != nil {
				return err
			}
		}
		i.MilestoneID = &m.ID
	}
	return nil
}
