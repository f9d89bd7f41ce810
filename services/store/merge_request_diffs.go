package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// mergeRequestDiffRow is a row of merge_request_diffs: a merge request's
// exported diff as one JSON document.
type mergeRequestDiffRow struct {
	MergeRequestID int64       `gorm:"primaryKey"`
	Diff           models.JSON `gorm:"type:text"`
}

func (mergeRequestDiffRow) TableName() string { return "merge_request_diffs" }

// SaveMergeRequestDiff keeps d as the diff of merge request mrID,
// replacing the one it had: the diff an export archive carried for a
// merge request whose commits the repository lacks.
func (s *MergeRequests) SaveMergeRequestDiff(ctx context.Context, mrID int64, d *models.MergeRequestDiff) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	err = s.conn(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "merge_request_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"diff"})}).
		Create(&mergeRequestDiffRow{MergeRequestID: mrID, Diff: b}).Error
	if err != nil {
		return fmt.Errorf("save the diff of merge request %d: %w", mrID, translate(err))
	}
	return nil
}

// MergeRequestDiff returns the diff kept for merge request mrID
// (SaveMergeRequestDiff); models.ErrNotFound when it has none.
func (s *MergeRequests) MergeRequestDiff(ctx context.Context, mrID int64) (*models.MergeRequestDiff, error) {
	var row mergeRequestDiffRow
	err := s.conn(ctx).Where("merge_request_id = ?", mrID).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("no diff kept for merge request %d: %w", mrID, models.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read the diff of merge request %d: %w", mrID, translate(err))
	}
	var d models.MergeRequestDiff
	if err := json.Unmarshal(row.Diff, &d); err != nil {
		return nil, fmt.Errorf("read the diff of merge request %d: %w", mrID, err)
	}
	return &d, nil
}
