package store

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// LoadMergeRequest returns merge request iid of project projectID with its
// author, assignees and reviewers (ordered by user id), or
// models.ErrNotFound. It does not check permissions; commits and diffs are
// not loaded. It runs two statements: the merge request, then its author,
// assignees and reviewers together (see people).
func (s *Store) LoadMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error) {
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
func (s *Store) MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, int64, error) {
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
func (s *Store) LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, shas []string, limit int) ([]models.Pipeline, error) {
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
func (s *Store) FindOpenMergeRequest(ctx context.Context, projectID int64, source, target string) (*models.MergeRequest, error) {
	var mr models.MergeRequest
	err := s.conn(ctx).Where("project_id = ? AND source_branch = ? AND target_branch = ? AND state = ?",
		projectID, source, target, models.MergeRequestOpened).Order("iid").Take(&mr).Error
	if err != nil {
		return nil, fmt.Errorf("open merge request %s→%s in project %d: %w", source, target, projectID, translate(err))
	}
	return &mr, nil
}
