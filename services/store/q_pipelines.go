package store

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// LoadPipeline returns pipeline id (its global id) if it belongs to project
// projectID, or models.ErrNotFound.
func (s *Store) LoadPipeline(ctx context.Context, projectID, id int64) (*models.Pipeline, error) {
	var p models.Pipeline
	if err := s.conn(ctx).Where("id = ? AND project_id = ?", id, projectID).Take(&p).Error; err != nil {
		return nil, fmt.Errorf("load pipeline %d of project %d: %w", id, projectID, translate(err))
	}
	return &p, nil
}

// PagePipelineJobs returns limit jobs of a pipeline from offset, ordered by
// id, and the total number of its jobs.
func (s *Store) PagePipelineJobs(ctx context.Context, pipelineID int64, limit, offset int) ([]models.CIJob, int64, error) {
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
