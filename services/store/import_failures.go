package store

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// InsertImportFailures records the archive records project projectID's
// import could not save, stamped with the store's clock. Call it in the
// import's transaction.
func (s *Imports) InsertImportFailures(ctx context.Context, projectID int64, fs []models.ImportFailure) error {
	if len(fs) == 0 {
		return nil
	}
	now := s.clock()
	rows := make([]models.ImportFailure, len(fs))
	for k, f := range fs {
		f.ID, f.ProjectID, f.CreatedAt = 0, projectID, now
		rows[k] = f
	}
	if err := s.conn(ctx).CreateInBatches(rows, recordBatch).Error; err != nil {
		return fmt.Errorf("record the import failures of project %d: %w", projectID, translate(err))
	}
	return nil
}

// ListImportFailures returns the import failures of project projectID in
// the order they were recorded (relation, then line).
func (s *Imports) ListImportFailures(ctx context.Context, projectID int64) ([]models.ImportFailure, error) {
	var out []models.ImportFailure
	if err := s.conn(ctx).Where("project_id = ?", projectID).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("read the import failures of project %d: %w", projectID, translate(err))
	}
	return out, nil
}
