package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreatePipeline inserts p in project p.ProjectID with the next pipeline
// number of the project as its IID (any IID set by the caller is
// replaced), and its p.Jobs and p.Variables, in one transaction. Jobs inherit the
// pipeline's project and (when empty) its ref. It fills every ID, the IID
// and the timestamps. Status defaults to created (jobs too), Source to
// push.
//
// An empty SHA or ref, a status GitLab does not know, a job without a
// name, a merge request of another project, or a project or user that does
// not exist is models.ErrInvalidInput.
func (s *CI) CreatePipeline(ctx context.Context, p *models.Pipeline) error {
	if err := preparePipeline(p); err != nil {
		return fmt.Errorf("create pipeline in project %d: %w", p.ProjectID, err)
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		if p.MergeRequestID != nil {
			var count int64
			err := tx.conn(ctx).Model(&models.MergeRequest{}).
				Where("id = ? AND project_id = ?", *p.MergeRequestID, p.ProjectID).Count(&count).Error
			if err != nil {
				return translate(err)
			}
			if count == 0 {
				return fmt.Errorf("merge request %d is not in project %d: %w", *p.MergeRequestID, p.ProjectID, models.ErrInvalidInput)
			}
		}
		iid, err := tx.nextIID(ctx, p.ProjectID, usagePipelines)
		if err != nil {
			return err
		}
		p.IID = iid
		if err := tx.conn(ctx).Omit("Jobs", "Variables").Create(p).Error; err != nil {
			return translate(err)
		}
		for k := range p.Variables {
			p.Variables[k].PipelineID = p.ID
		}
		if len(p.Variables) > 0 {
			if err := tx.conn(ctx).Create(&p.Variables).Error; err != nil {
				return fmt.Errorf("write variables: %w", translate(err))
			}
		}
		if len(p.Jobs) == 0 {
			return nil
		}
		for k := range p.Jobs {
			p.Jobs[k].PipelineID = p.ID
		}
		if err := tx.conn(ctx).Create(&p.Jobs).Error; err != nil {
			return fmt.Errorf("write jobs: %w", translate(err))
		}
		return nil
	})
	if err != nil {
		p.ID, p.IID = 0, 0
		return fmt.Errorf("create pipeline in project %d: %w", p.ProjectID, err)
	}
	return nil
}

func preparePipeline(p *models.Pipeline) error {
	if strings.TrimSpace(p.SHA) == "" || strings.TrimSpace(p.Ref) == "" {
		return fmt.Errorf("sha and ref are required: %w", models.ErrInvalidInput)
	}
	if p.Status == "" {
		p.Status = models.StatusCreated
	}
	if !validCIStatus(p.Status) {
		return fmt.Errorf("status %q: %w", p.Status, models.ErrInvalidInput)
	}
	if p.Source == "" {
		p.Source = models.PipelineSourcePush
	}
	for k := range p.Jobs {
		j := &p.Jobs[k]
		if strings.TrimSpace(j.Name) == "" {
			return fmt.Errorf("job %d: empty name: %w", k, models.ErrInvalidInput)
		}
		if j.Status == "" {
			j.Status = models.StatusCreated
		}
		if !validCIStatus(j.Status) {
			return fmt.Errorf("job %q: status %q: %w", j.Name, j.Status, models.ErrInvalidInput)
		}
		if j.Stage == "" {
			j.Stage = "test"
		}
		if j.Ref == "" {
			j.Ref = p.Ref
		}
		if j.Type == "" {
			j.Type = models.JobTypeBuild
		}
		j.ID, j.ProjectID = 0, p.ProjectID
	}
	for k := range p.Variables {
		v := &p.Variables[k]
		if v.VariableType == "" {
			v.VariableType = "env_var"
		}
		v.ID = 0
	}
	p.ID = 0
	return nil
}

// validCIStatus reports whether s is one of GitLab's pipeline/job statuses.
func validCIStatus(s string) bool {
	switch s {
	case models.StatusCreated, "waiting_for_resource", "preparing", "waiting_for_callback", models.StatusPending,
		models.StatusRunning, models.StatusSuccess, models.StatusFailed, "canceling", models.StatusCanceled,
		models.StatusSkipped, models.StatusManual, "scheduled":
		return true
	}
	return false
}

// LoadPipeline returns pipeline id (its global id) if it belongs to project
// projectID, or models.ErrNotFound.
func (s *CI) LoadPipeline(ctx context.Context, projectID, id int64) (*models.Pipeline, error) {
	var p models.Pipeline
	if err := s.conn(ctx).Where("id = ? AND project_id = ?", id, projectID).Take(&p).Error; err != nil {
		return nil, fmt.Errorf("load pipeline %d of project %d: %w", id, projectID, translate(err))
	}
	return &p, nil
}

// PagePipelineJobs returns limit jobs of a pipeline from offset, ordered by
// id, and the total number of its jobs.
func (s *CI) PagePipelineJobs(ctx context.Context, pipelineID int64, limit, offset int) ([]models.CIJob, int64, error) {
	var total int64
	if err := s.conn(ctx).Model(&models.CIJob{}).Where("pipeline_id = ?", pipelineID).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count jobs of pipeline %d: %w", pipelineID, translate(err))
	}
	out := []models.CIJob{}
	err := s.conn(ctx).Where("pipeline_id = ?", pipelineID).Order("id").Limit(limit).Offset(offset).Find(&out).Error
	if err != nil {
		return nil, 0, fmt.Errorf("list jobs of pipeline %d: %w", pipelineID, translate(err))
	}
	return out, total, nil
}
