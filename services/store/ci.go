package store

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// ListPipelines returns one page of q.ProjectID's pipelines and whether a
// next page exists (it reads PerPage+1 rows). Child pipelines (source
// parent_pipeline) are left out unless q.Source asks for them, as GitLab
// does.
func (s *CI) ListPipelines(ctx context.Context, q models.PipelineQuery) ([]models.Pipeline, bool, error) {
	db := s.conn(ctx).Model(&models.Pipeline{}).Where("project_id = ?", q.ProjectID)
	if q.Ref != "" {
		db = db.Where("ref = ?", q.Ref)
	}
	if q.Status != "" {
		db = db.Where("status = ?", q.Status)
	}
	if q.Source != "" {
		db = db.Where("source = ?", q.Source)
	} else {
		db = db.Where("source <> ?", "parent_pipeline")
	}
	if q.CreatedAfter != nil {
		db = db.Where("created_at >= ?", *q.CreatedAfter)
	}
	if q.CreatedBefore != nil {
		db = db.Where("created_at < ?", *q.CreatedBefore)
	}
	col := "id"
	if slices.Contains([]string{"status", "ref", "updated_at", "user_id"}, q.OrderBy) {
		col = q.OrderBy
	}
	desc := q.Sort != "asc"
	db = db.Order(clause.OrderByColumn{Column: clause.Column{Name: col}, Desc: desc})
	if col != "id" {
		db = db.Order(clause.OrderByColumn{Column: clause.Column{Name: "id"}, Desc: desc})
	}
	out := []models.Pipeline{}
	err := db.Limit(q.PerPage + 1).Offset((q.Page - 1) * q.PerPage).Find(&out).Error
	if err != nil {
		return nil, false, fmt.Errorf("list pipelines of project %d: %w", q.ProjectID, translate(err))
	}
	more := len(out) > q.PerPage
	if more {
		out = out[:q.PerPage]
	}
	return out, more, nil
}

// PageJobs returns up to q.Limit jobs of a pipeline in id order and
// whether more follow.
func (s *CI) PageJobs(ctx context.Context, q models.JobQuery) ([]models.CIJob, bool, error) {
	db := s.conn(ctx).Where("pipeline_id = ? AND NOT retried", q.PipelineID)
	if q.Type != "" {
		db = db.Where("type = ?", q.Type)
	}
	if q.Status != "" {
		db = db.Where("status = ?", q.Status)
	}
	if q.AfterID > 0 {
		db = db.Where("id > ?", q.AfterID)
	}
	out := []models.CIJob{}
	if err := db.Order("id").Limit(q.Limit + 1).Find(&out).Error; err != nil {
		return nil, false, fmt.Errorf("jobs of pipeline %d: %w", q.PipelineID, translate(err))
	}
	more := len(out) > q.Limit
	if more {
		out = out[:q.Limit]
	}
	return out, more, nil
}

// DownstreamPipelines returns up to limit pipelines triggered by pipeline
// id (in id order, after afterID) and whether more follow.
func (s *CI) DownstreamPipelines(ctx context.Context, id, afterID int64, limit int) ([]models.Pipeline, bool, error) {
	out := []models.Pipeline{}
	err := s.conn(ctx).Where("upstream_pipeline_id = ? AND id > ?", id, afterID).
		Order("id").Limit(limit + 1).Find(&out).Error
	if err != nil {
		return nil, false, fmt.Errorf("downstream pipelines of %d: %w", id, translate(err))
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// PipelinesTriggeredBy maps bridge job ids to the pipeline each
// triggered (jobs that triggered none are absent).
func (s *CI) PipelinesTriggeredBy(ctx context.Context, jobIDs []int64) (map[int64]models.Pipeline, error) {
	out := map[int64]models.Pipeline{}
	if len(jobIDs) == 0 {
		return out, nil
	}
	var ps []models.Pipeline
	if err := s.conn(ctx).Where("source_job_id IN ?", jobIDs).Order("id").Find(&ps).Error; err != nil {
		return nil, fmt.Errorf("pipelines triggered by jobs: %w", translate(err))
	}
	for _, p := range ps {
		out[*p.SourceJobID] = p
	}
	return out, nil
}

// LoadJob returns job id if it belongs to project projectID, or
// models.ErrNotFound.
func (s *CI) LoadJob(ctx context.Context, projectID, id int64) (*models.CIJob, error) {
	var j models.CIJob
	if err := s.conn(ctx).Where("id = ? AND project_id = ?", id, projectID).Take(&j).Error; err != nil {
		return nil, fmt.Errorf("load job %d of project %d: %w", id, projectID, translate(err))
	}
	return &j, nil
}

// JobArtifacts returns the files of the given jobs (logs excluded), by
// job then file type.
func (s *CI) JobArtifacts(ctx context.Context, jobIDs []int64) ([]models.JobArtifact, error) {
	out := []models.JobArtifact{}
	if len(jobIDs) == 0 {
		return out, nil
	}
	err := s.conn(ctx).Where("job_id IN ? AND file_type <> ?", jobIDs, models.ArtifactTrace).
		Order("job_id, file_type").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("artifacts of jobs: %w", translate(err))
	}
	return out, nil
}

// FindJobArtifact returns the artifact of fileType of job jobID, or
// models.ErrNotFound.
func (s *CI) FindJobArtifact(ctx context.Context, jobID int64, fileType string) (*models.JobArtifact, error) {
	var a models.JobArtifact
	if err := s.conn(ctx).Where("job_id = ? AND file_type = ?", jobID, fileType).Take(&a).Error; err != nil {
		return nil, fmt.Errorf("%s of job %d: %w", fileType, jobID, translate(err))
	}
	return &a, nil
}

// RetryPipeline retries the failed and canceled jobs of pipeline p (its
// ID is read): each is marked retried and replaced by a pending copy
// started by userID, and the pipeline becomes pending. A pipeline with
// nothing to retry is models.ErrInvalidInput. It returns the pipeline as
// stored after the change.
func (s *CI) RetryPipeline(ctx context.Context, id, userID int64) (*models.Pipeline, error) {
	return s.changePipeline(ctx, id, func(tx *Store, p *models.Pipeline) error {
		var jobs []models.CIJob
		err := tx.conn(ctx).Where("pipeline_id = ? AND NOT retried AND status IN ?", id,
			[]string{models.StatusFailed, models.StatusCanceled}).Order("id").Find(&jobs).Error
		if err != nil {
			return translate(err)
		}
		if len(jobs) == 0 {
			return fmt.Errorf("pipeline %d has no failed or canceled job to retry: %w", id, models.ErrInvalidInput)
		}
		now := tx.clock()
		for _, j := range jobs {
			res := tx.conn(ctx).Model(&models.CIJob{}).Where("id = ? AND NOT retried", j.ID).Update("retried", true)
			if res.Error != nil {
				return translate(res.Error)
			}
			if res.RowsAffected != 1 {
				return fmt.Errorf("job %d was retried meanwhile: %w", j.ID, models.ErrConflict)
			}
			uid := userID
			retry := models.CIJob{PipelineID: id, ProjectID: p.ProjectID, Name: j.Name, Stage: j.Stage,
				Status: models.StatusPending, Ref: j.Ref, AllowFailure: j.AllowFailure, Type: j.Type,
				UserID: &uid, CreatedAt: now}
			if err := tx.conn(ctx).Create(&retry).Error; err != nil {
				return translate(err)
			}
		}
		return translate(tx.conn(ctx).Model(&models.Pipeline{}).Where("id = ?", id).
			Updates(map[string]any{"status": models.StatusPending, "finished_at": nil, "updated_at": now}).Error)
	})
}

// CancelPipeline cancels pipeline id and its unfinished jobs. A pipeline
// that has finished is models.ErrInvalidInput.
func (s *CI) CancelPipeline(ctx context.Context, id int64) (*models.Pipeline, error) {
	return s.changePipeline(ctx, id, func(tx *Store, p *models.Pipeline) error {
		if !slices.Contains(models.ActiveStatuses, p.Status) && p.Status != models.StatusManual {
			return fmt.Errorf("pipeline %d is %s and cannot be canceled: %w", id, p.Status, models.ErrInvalidInput)
		}
		now := tx.clock()
		err := tx.conn(ctx).Model(&models.CIJob{}).Where("pipeline_id = ? AND status IN ?", id,
			append(slices.Clone(models.ActiveStatuses), models.StatusManual)).
			Updates(map[string]any{"status": models.StatusCanceled, "finished_at": now}).Error
		if err != nil {
			return translate(err)
		}
		return translate(tx.conn(ctx).Model(&models.Pipeline{}).Where("id = ?", id).
			Updates(map[string]any{"status": models.StatusCanceled, "finished_at": now, "updated_at": now}).Error)
	})
}

// RenamePipeline sets the name of pipeline id.
func (s *CI) RenamePipeline(ctx context.Context, id int64, name string) (*models.Pipeline, error) {
	return s.changePipeline(ctx, id, func(tx *Store, _ *models.Pipeline) error {
		return translate(tx.conn(ctx).Model(&models.Pipeline{}).Where("id = ?", id).
			Updates(map[string]any{"name": name, "updated_at": tx.clock()}).Error)
	})
}

// DeletePipeline deletes pipeline id with its jobs, variables, logs and
// artifacts. An unknown id is models.ErrNotFound.
func (s *CI) DeletePipeline(ctx context.Context, id int64) error {
	res := s.conn(ctx).Where("id = ?", id).Delete(&models.Pipeline{})
	if res.Error != nil {
		return fmt.Errorf("delete pipeline %d: %w", id, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("delete pipeline %d: %w", id, models.ErrNotFound)
	}
	return nil
}

// changePipeline runs change on pipeline id under a row lock in one
// transaction and returns the pipeline as stored afterwards.
func (s *CI) changePipeline(ctx context.Context, id int64, change func(tx *Store, p *models.Pipeline) error) (*models.Pipeline, error) {
	var out models.Pipeline
	err := s.st.WithTx(ctx, func(tx *Store) error {
		var p models.Pipeline
		if err := tx.forUpdate(tx.conn(ctx).Where("id = ?", id)).Take(&p).Error; err != nil {
			return translate(err)
		}
		if err := change(tx, &p); err != nil {
			return err
		}
		return translate(tx.conn(ctx).Where("id = ?", id).Take(&out).Error)
	})
	if err != nil {
		return nil, fmt.Errorf("pipeline %d: %w", id, err)
	}
	return &out, nil
}
