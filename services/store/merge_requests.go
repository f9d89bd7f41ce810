package store

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateMergeRequest inserts mr in project mr.ProjectID with the next
// merge request number of the project as its IID (any IID set by the
// caller is replaced), links mr.Assignees and mr.Reviewers (only their IDs
// are read), and writes mr.Commits and mr.Diffs, all in one transaction.
// Commits and diffs are stored in slice order (Position is set from the
// index; commits newest first, as GitLab lists them). It fills every ID,
// the IID and the timestamps.
//
// Defaults: State opened, MergeStatus unchecked, SHA the first commit's,
// a commit's ShortID the first 8 characters of its SHA, a diff's modes
// 100644; a merged or closed merge request without MergedAt/ClosedAt gets
// the current time.
//
// An empty title or branch, an unknown state, a commit without SHA, a diff
// without paths, or a project, author, assignee or reviewer that does not
// exist is models.ErrInvalidInput. An open merge request when another one
// of the same project and branches is open is a
// *models.OpenMergeRequestExistsError (a models.ErrConflict), also when
// the other one was created at the same moment.
func (s *Store) CreateMergeRequest(ctx context.Context, mr *models.MergeRequest) error {
	if err := s.prepareMergeRequest(mr); err != nil {
		return fmt.Errorf("create merge request in project %d: %w", mr.ProjectID, err)
	}
	err := s.WithTx(ctx, func(tx *Store) error {
		iid, err := tx.nextIID(ctx, mr.ProjectID, usageMergeRequests)
		if err != nil {
			return err
		}
		mr.IID = iid
		// The partial unique index allows one open merge request per
		// branch pair. DO NOTHING (rather than a unique violation) keeps a
		// PostgreSQL transaction usable, so the one that won can be named.
		res := tx.conn(ctx).Omit(clause.Associations).Clauses(clause.OnConflict{
			Columns:     []clause.Column{{Name: "project_id"}, {Name: "source_branch"}, {Name: "target_branch"}},
			TargetWhere: clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "state = 'opened'"}}},
			DoNothing:   true,
		}).Create(mr)
		if res.Error != nil {
			return translate(res.Error)
		}
		if res.RowsAffected == 0 {
			open, err := tx.FindOpenMergeRequest(ctx, mr.ProjectID, mr.SourceBranch, mr.TargetBranch)
			if err != nil {
				return err
			}
			return &models.OpenMergeRequestExistsError{IID: open.IID}
		}
		if err := tx.insertUserLinks(ctx, "merge_request_assignees", "merge_request_id", mr.ID, mr.AssigneeIDs()); err != nil {
			return err
		}
		if err := tx.insertUserLinks(ctx, "merge_request_reviewers", "merge_request_id", mr.ID, mr.ReviewerIDs()); err != nil {
			return err
		}
		for k := range mr.Commits {
			mr.Commits[k].MergeRequestID = mr.ID
		}
		for k := range mr.Diffs {
			mr.Diffs[k].MergeRequestID = mr.ID
		}
		if len(mr.Commits) > 0 {
			if err := tx.conn(ctx).Create(&mr.Commits).Error; err != nil {
				return fmt.Errorf("write commits: %w", translate(err))
			}
		}
		if len(mr.Diffs) > 0 {
			if err := tx.conn(ctx).Create(&mr.Diffs).Error; err != nil {
				return fmt.Errorf("write diffs: %w", translate(err))
			}
		}
		return nil
	})
	if err != nil {
		mr.ID, mr.IID = 0, 0
		return fmt.Errorf("create merge request in project %d: %w", mr.ProjectID, err)
	}
	return nil
}

func (s *Store) prepareMergeRequest(mr *models.MergeRequest) error {
	if strings.TrimSpace(mr.Title) == "" {
		return fmt.Errorf("empty title: %w", models.ErrInvalidInput)
	}
	if strings.TrimSpace(mr.SourceBranch) == "" || strings.TrimSpace(mr.TargetBranch) == "" {
		return fmt.Errorf("source and target branch are required: %w", models.ErrInvalidInput)
	}
	now := s.clock()
	switch mr.State {
	case "":
		mr.State = models.MergeRequestOpened
	case models.MergeRequestOpened:
	case models.MergeRequestMerged:
		if mr.MergedAt == nil {
			mr.MergedAt = &now
		}
	case models.MergeRequestClosed:
		if mr.ClosedAt == nil {
			mr.ClosedAt = &now
		}
	default:
		return fmt.Errorf("state %q: %w", mr.State, models.ErrInvalidInput)
	}
	if mr.MergeStatus == "" {
		mr.MergeStatus = models.MergeStatusUnchecked
	}
	if mr.Labels == nil {
		mr.Labels = models.StringList{}
	}
	for k := range mr.Commits {
		c := &mr.Commits[k]
		if len(c.SHA) < 8 {
			return fmt.Errorf("commit %d: SHA %q: %w", k, c.SHA, models.ErrInvalidInput)
		}
		if c.ShortID == "" {
			c.ShortID = c.SHA[:8]
		}
		if c.CommittedDate.IsZero() {
			c.CommittedDate = c.AuthoredDate
		}
		c.ID, c.Position = 0, k
	}
	if mr.SHA == "" && len(mr.Commits) > 0 {
		mr.SHA = mr.Commits[0].SHA
	}
	for k := range mr.Diffs {
		d := &mr.Diffs[k]
		if d.OldPath == "" || d.NewPath == "" {
			return fmt.Errorf("diff %d: old and new path are required: %w", k, models.ErrInvalidInput)
		}
		if d.AMode == "" {
			d.AMode = "100644"
		}
		if d.BMode == "" {
			d.BMode = "100644"
		}
		d.ID, d.Position = 0, k
	}
	mr.ID = 0
	return nil
}
