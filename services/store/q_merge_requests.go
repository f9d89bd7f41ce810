package store

import (
	"context"
	"fmt"
	"slices"

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

// PageMergeRequestCommits returns limit commits of a merge request from
// offset, newest first (GitLab's order), and the total number of commits.
func (s *Store) PageMergeRequestCommits(ctx context.Context, mrID int64, limit, offset int) ([]models.MergeRequestCommit, int64, error) {
	out := []models.MergeRequestCommit{}
	var total int64
	q := s.conn(ctx).Model(&models.MergeRequestCommit{}).Where("merge_request_id = ?", mrID)
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count commits of merge request %d: %w", mrID, translate(err))
	}
	err := s.conn(ctx).Where("merge_request_id = ?", mrID).Order("position").
		Limit(limit).Offset(offset).Find(&out).Error
	if err != nil {
		return nil, 0, fmt.Errorf("list commits of merge request %d: %w", mrID, translate(err))
	}
	return out, total, nil
}

// PageMergeRequestDiffs returns limit changed files of a merge request
// from offset, in diff order, and the total number of changed files.
func (s *Store) PageMergeRequestDiffs(ctx context.Context, mrID int64, limit, offset int) ([]models.MergeRequestDiff, int64, error) {
	out := []models.MergeRequestDiff{}
	total, err := s.CountMergeRequestDiffs(ctx, mrID)
	if err != nil {
		return nil, 0, err
	}
	err = s.conn(ctx).Where("merge_request_id = ?", mrID).Order("position").
		Limit(limit).Offset(offset).Find(&out).Error
	if err != nil {
		return nil, 0, fmt.Errorf("list diffs of merge request %d: %w", mrID, translate(err))
	}
	return out, total, nil
}

// CountMergeRequestDiffs returns how many files merge request mrID
// changes.
func (s *Store) CountMergeRequestDiffs(ctx context.Context, mrID int64) (int64, error) {
	var total int64
	q := s.conn(ctx).Model(&models.MergeRequestDiff{}).Where("merge_request_id = ?", mrID)
	if err := q.Count(&total).Error; err != nil {
		return 0, fmt.Errorf("count diffs of merge request %d: %w", mrID, translate(err))
	}
	return total, nil
}

// MergeRequestPipelines returns up to limit pipelines of merge request mr,
// newest first, and how many there are in all. As in GitLab, they are the
// merge request pipelines (merge_request_id) plus the branch pipelines of
// its source branch that ran on one of its commits.
func (s *Store) MergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, limit int) ([]models.Pipeline, int64, error) {
	cond, args := mergeRequestPipelinesSQL(mr)
	var total int64
	if err := s.conn(ctx).Model(&models.Pipeline{}).Where(cond, args...).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count pipelines of merge request %d: %w", mr.ID, translate(err))
	}
	out, err := s.LatestMergeRequestPipelines(ctx, mr, limit)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// LatestMergeRequestPipelines is MergeRequestPipelines without the total:
// up to limit pipelines of merge request mr, newest first, in one
// statement.
func (s *Store) LatestMergeRequestPipelines(ctx context.Context, mr *models.MergeRequest, limit int) ([]models.Pipeline, error) {
	cond, args := mergeRequestPipelinesSQL(mr)
	out := []models.Pipeline{}
	err := s.conn(ctx).Where(cond, args...).Order("id DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list pipelines of merge request %d: %w", mr.ID, translate(err))
	}
	return out, nil
}

// mergeRequestPipelinesSQL is the condition on ci_pipelines selecting the
// pipelines of merge request mr, with its arguments.
func mergeRequestPipelinesSQL(mr *models.MergeRequest) (string, []any) {
	return "project_id = ? AND (merge_request_id = ? OR (ref = ? AND sha IN " +
			"(SELECT c.sha FROM merge_request_commits c WHERE c.merge_request_id = ?)))",
		[]any{mr.ProjectID, mr.ID, mr.SourceBranch, mr.ID}
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

// BranchExists reports whether the store knows branch in project p. glmcp
// keeps no git refs, so a branch is known when it is the default branch,
// holds repository files, is the source or target of a merge request, or
// has had a branch pipeline.
func (s *Store) BranchExists(ctx context.Context, p *models.Project, branch string) (bool, error) {
	if branch == p.DefaultBranch {
		return true, nil
	}
	var n int64
	err := s.conn(ctx).Raw(`SELECT
  (SELECT count(*) FROM repository_files WHERE project_id = ? AND ref = ?) +
  (SELECT count(*) FROM merge_requests WHERE project_id = ? AND (source_branch = ? OR target_branch = ?)) +
  (SELECT count(*) FROM ci_pipelines WHERE project_id = ? AND ref = ?)`,
		p.ID, branch, p.ID, branch, branch, p.ID, branch).Scan(&n).Error
	if err != nil {
		return false, fmt.Errorf("branch %q of project %d: %w", branch, p.ID, translate(err))
	}
	return n > 0, nil
}

// BranchDiffs returns the changes that turn branch target into branch
// source, file by file in path order, computed from the repository files
// stored for both (unified diff hunks, as GitLab returns them). It returns
// nil when either branch has no stored files: the change is unknown.
func (s *Store) BranchDiffs(ctx context.Context, projectID int64, source, target string) ([]models.MergeRequestDiff, error) {
	load := func(ref string) (map[string]string, error) {
		var files []models.RepositoryFile
		err := s.conn(ctx).Select("file_path", "content").
			Where("project_id = ? AND ref = ?", projectID, ref).Order("file_path").Find(&files).Error
		if err != nil {
			return nil, fmt.Errorf("files of %q in project %d: %w", ref, projectID, translate(err))
		}
		m := make(map[string]string, len(files))
		for _, f := range files {
			m[f.FilePath] = f.Content
		}
		return m, nil
	}
	src, err := load(source)
	if err != nil {
		return nil, err
	}
	dst, err := load(target)
	if err != nil {
		return nil, err
	}
	if len(src) == 0 || len(dst) == 0 {
		return nil, nil
	}
	paths := make([]string, 0, len(src)+len(dst))
	for p := range src {
		paths = append(paths, p)
	}
	for p := range dst {
		if _, ok := src[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out []models.MergeRequestDiff
	for _, p := range paths {
		newText, inSrc := src[p]
		oldText, inDst := dst[p]
		if inSrc && inDst && newText == oldText {
			continue
		}
		d := models.MergeRequestDiff{
			OldPath: p, NewPath: p, NewFile: !inDst, DeletedFile: !inSrc,
			Diff: UnifiedDiff(oldText, newText),
		}
		if d.NewFile {
			d.AMode = "0" // git's mode of a missing side
		}
		if d.DeletedFile {
			d.BMode = "0"
		}
		out = append(out, d)
	}
	return out, nil
}
