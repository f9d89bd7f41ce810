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
// caller is replaced) and links mr.Assignees and mr.Reviewers (only their
// IDs are read), in one transaction. It fills the ID, the IID and the
// timestamps. Its commits and diffs live in git: the store does not check
// the branches (the caller does, against the repository).
//
// Defaults: State opened, MergeStatus unchecked; a merged or closed merge
// request without MergedAt/ClosedAt gets the current time.
//
// An empty title or branch, an unknown state, or a project, author,
// assignee or reviewer that does not exist is models.ErrInvalidInput. An open merge request when another one
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
	mr.ID = 0
	return nil
}

// MergeMergeRequest records the merge of merge request iid of project
// projectID that m describes (made in git by the caller): state merged,
// merged now by m.MergeUserID, its head, merge base and the commits the
// merge made. Only an open merge request is changed, under a row lock, so
// two accepts of one merge request record one merge; a merge request that
// is no longer open is models.ErrConflict and nothing changes. It returns
// the merge request as stored.
func (s *Store) MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error) {
	var out *models.MergeRequest
	err := s.WithTx(ctx, func(tx *Store) error {
		var mr models.MergeRequest
		q := tx.forUpdate(tx.conn(ctx).Where("project_id = ? AND iid = ?", projectID, iid))
		if err := q.Take(&mr).Error; err != nil {
			return translate(err)
		}
		if mr.State != models.MergeRequestOpened {
			return fmt.Errorf("merge request !%d is %s, not open: %w", iid, mr.State, models.ErrConflict)
		}
		now := tx.clock()
		set := map[string]any{"state": models.MergeRequestMerged, "merged_at": now, "updated_at": now,
			"merge_status": models.MergeStatusCanBeMerged, "sha": m.HeadSHA, "diff_base_sha": m.DiffBaseSHA,
			"merge_commit_sha": m.MergeCommitSHA, "squash_commit_sha": m.SquashCommitSHA,
			"merge_user_id": m.MergeUserID, "squash": m.Squash}
		if m.RemoveSourceBranch != nil {
			set["force_remove_source_branch"] = *m.RemoveSourceBranch
		}
		if err := tx.conn(ctx).Model(&models.MergeRequest{}).Where("id = ?", mr.ID).Updates(set).Error; err != nil {
			return translate(err)
		}
		var err error
		out, err = tx.LoadMergeRequest(ctx, projectID, iid)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("merge merge request !%d of project %d: %w", iid, projectID, err)
	}
	return out, nil
}

// LockMergeRequest returns merge request iid of project projectID (as
// LoadMergeRequest) with its row locked until the transaction s runs in
// ends (PostgreSQL; SQLite transactions are serialized already), so that
// a merge made meanwhile in git is recorded by one caller only. Call it
// inside WithTx.
func (s *Store) LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error) {
	var mr models.MergeRequest
	q := s.forUpdate(s.conn(ctx).Select("id").Where("project_id = ? AND iid = ?", projectID, iid))
	if err := q.Take(&mr).Error; err != nil {
		return nil, fmt.Errorf("lock merge request !%d of project %d: %w", iid, projectID, translate(err))
	}
	return s.LoadMergeRequest(ctx, projectID, iid)
}
