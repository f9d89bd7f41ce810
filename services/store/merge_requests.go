package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/migrations"
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
func (s *MergeRequests) CreateMergeRequest(ctx context.Context, mr *models.MergeRequest) error {
	if err := s.prepareMergeRequest(mr); err != nil {
		return fmt.Errorf("create merge request in project %d: %w", mr.ProjectID, err)
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		iid, err := tx.nextIID(ctx, mr.ProjectID, usageMergeRequests)
		if err != nil {
			return err
		}
		mr.IID = iid
		if mr.State == models.MergeRequestOpened {
			// An imported merge request is outside the index (below):
			// the rule holds against it all the same.
			if open, err := tx.MergeRequests.FindOpenMergeRequest(ctx, mr.ProjectID, mr.SourceBranch, mr.TargetBranch); err == nil {
				return &models.OpenMergeRequestExistsError{IID: open.IID}
			} else if !errors.Is(err, models.ErrNotFound) {
				return err
			}
		}
		// The partial unique index allows one open merge request per
		// branch pair among those made here (not imported history). DO
		// NOTHING (rather than a unique violation) keeps a PostgreSQL
		// transaction usable, so the one that won can be named.
		res := tx.conn(ctx).Omit(clause.Associations).Clauses(clause.OnConflict{
			Columns:     []clause.Column{{Name: "project_id"}, {Name: "source_branch"}, {Name: "target_branch"}},
			TargetWhere: clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "state = 'opened' AND imported = false"}}},
			DoNothing:   true,
		}).Create(mr)
		if res.Error != nil {
			return translate(res.Error)
		}
		if res.RowsAffected == 0 {
			open, err := tx.MergeRequests.FindOpenMergeRequest(ctx, mr.ProjectID, mr.SourceBranch, mr.TargetBranch)
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

func (s *MergeRequests) prepareMergeRequest(mr *models.MergeRequest) error {
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
func (s *MergeRequests) MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error) {
	var out *models.MergeRequest
	err := s.st.WithTx(ctx, func(tx *Store) error {
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
		out, err = tx.MergeRequests.LoadMergeRequest(ctx, projectID, iid)
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
func (s *MergeRequests) LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error) {
	var mr models.MergeRequest
	q := s.forUpdate(s.conn(ctx).Select("id").Where("project_id = ? AND iid = ?", projectID, iid))
	if err := q.Take(&mr).Error; err != nil {
		return nil, fmt.Errorf("lock merge request !%d of project %d: %w", iid, projectID, translate(err))
	}
	return s.LoadMergeRequest(ctx, projectID, iid)
}

// RelatedMergeRequests returns the merge requests of project projectID
// whose title or description references its work item iid ("#12", "Closes
// #12"; not "#123"), by id ascending after afterID, at most limit, with
// their authors, and whether more follow. It does not check permissions.
//
// The match is a regular expression on PostgreSQL and a GLOB on SQLite,
// both anchored so that the digits after "#" are exactly iid.
func (s *MergeRequests) RelatedMergeRequests(ctx context.Context, projectID, iid, afterID int64, limit int) ([]models.MergeRequest, bool, error) {
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

// LoadMergeRequest returns merge request iid of project projectID with its
// author, assignees and reviewers (ordered by user id), or
// models.ErrNotFound. It does not check permissions; commits and diffs are
// not loaded. It runs two statements: the merge request, then its author,
// assignees and reviewers together (see people).
func (s *MergeRequests) LoadMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error) {
	var mr models.MergeRequest
	if err := s.conn(ctx).Where("project_id = ? AND iid = ?", projectID, iid).Take(&mr).Error; err != nil {
		return nil, fmt.Errorf("load merge request !%d of project %d: %w", iid, projectID, translate(err))
	}
	ppl, err := s.people(ctx, mr.AuthorID, mr.ID, mergeRequestAssignees, mergeRequestReviewers)
	if err != nil {
		return nil, fmt.Errorf("load author, assignees and reviewers of merge request %d: %w", mr.ID, err)
	}
	mr.Author = ppl.author
	mr.Assignees, mr.Reviewers = ppl.linked[mergeRequestAssignees.role], ppl.linked[mergeRequestReviewers.role]
	return &mr, nil
}

// MergeRequestPipelines returns up to limit pipelines of merge request mr,
// newest first, and how many there are in all. As in GitLab, they are the
// merge request pipelines (merge_request_id) plus the branch pipelines of
// its source branch that ran on one of its commits: shas, read from git by
// the caller (mr.SHA counts as one).
func (s *MergeRequests) MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, int64, error) {
	cond, args := mergeRequestPipelinesSQL(mr, shas)
	var total int64
	if err := s.conn(ctx).Model(&models.Pipeline{}).Where(cond, args...).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count pipelines of merge request %d: %w", mr.ID, translate(err))
	}
	out, err := s.LatestMergeRequestPipelines(ctx, mr, shas, limit)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// LatestMergeRequestPipelines is MergeRequestPipelines without the total:
// up to limit pipelines of merge request mr, newest first, in one
// statement.
func (s *MergeRequests) LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error) {
	cond, args := mergeRequestPipelinesSQL(mr, shas)
	out := []models.Pipeline{}
	err := s.conn(ctx).Where(cond, args...).Order("id DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list pipelines of merge request %d: %w", mr.ID, translate(err))
	}
	return out, nil
}

// maxPipelineSHAs bounds the commits whose branch pipelines are matched
// (the newest; a merge request's commit list is bounded the same way).
const maxPipelineSHAs = 1000

// mergeRequestPipelinesSQL is the condition on ci_pipelines selecting the
// pipelines of merge request mr whose commits are shas, with its
// arguments.
func mergeRequestPipelinesSQL(mr *models.MergeRequest, shas []string) (string, []any) {
	set := make([]string, 0, len(shas)+1)
	if mr.SHA != "" {
		set = append(set, mr.SHA)
	}
	for _, sha := range shas[:min(len(shas), maxPipelineSHAs)] {
		if sha != mr.SHA {
			set = append(set, sha)
		}
	}
	if len(set) == 0 {
		return "project_id = ? AND merge_request_id = ?", []any{mr.ProjectID, mr.ID}
	}
	return "project_id = ? AND (merge_request_id = ? OR (ref = ? AND sha IN ?))",
		[]any{mr.ProjectID, mr.ID, mr.SourceBranch, set}
}

// FindOpenMergeRequest returns the open merge request of project projectID
// from source into target with the lowest iid, or models.ErrNotFound.
func (s *MergeRequests) FindOpenMergeRequest(ctx context.Context, projectID int64, source, target string) (*models.MergeRequest, error) {
	var mr models.MergeRequest
	err := s.conn(ctx).Where("project_id = ? AND source_branch = ? AND target_branch = ? AND state = ?",
		projectID, source, target, models.MergeRequestOpened).Order("iid").Take(&mr).Error
	if err != nil {
		return nil, fmt.Errorf("open merge request %s→%s in project %d: %w", source, target, projectID, translate(err))
	}
	return &mr, nil
}
