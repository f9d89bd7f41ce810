package store

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// codeIndexBatch is how many repository_files rows one INSERT writes.
const codeIndexBatch = 200

// IndexStatus returns what the code index holds for project projectID (see
// models.IndexStatus), or models.ErrNotFound when it was never built.
func (s *Store) IndexStatus(ctx context.Context, projectID int64) (*models.IndexStatus, error) {
	var st models.IndexStatus
	err := s.conn(ctx).Where("project_id = ?", projectID).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("index status of project %d: %w", projectID, models.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("index status of project %d: %w", projectID, translate(err))
	}
	return &st, nil
}

// ReplaceCodeIndex makes files the code index of project next.ProjectID
// (the text files of next.Ref at next.LastCommit; it fills next's Files
// and IndexedAt), in one transaction,
// provided the index is still prev (nil: never built): a compare-and-swap
// on index_statuses, taken before any row is touched, so of two
// re-indexers that read the same prev exactly one replaces the rows and
// the other changes nothing. It reports whether it replaced them. Every
// row of the project goes, whatever its ref: the table is an index of the
// default branch only.
func (s *Store) ReplaceCodeIndex(ctx context.Context, prev *models.IndexStatus, next *models.IndexStatus, files []models.RepositoryFile) (bool, error) {
	now := s.clock()
	next.IndexedAt, next.Files = now, len(files)
	won := false
	err := s.WithTx(ctx, func(tx *Store) error {
		db := tx.conn(ctx)
		var res *gorm.DB
		if prev == nil {
			res = db.Clauses(clause.OnConflict{DoNothing: true}).Create(next)
		} else {
			res = db.Model(&models.IndexStatus{}).
				Where("project_id = ? AND ref = ? AND last_commit = ?", next.ProjectID, prev.Ref, prev.LastCommit).
				Updates(map[string]any{"ref": next.Ref, "last_commit": next.LastCommit, "files": next.Files, "indexed_at": now})
		}
		if res.Error != nil {
			return translate(res.Error)
		}
		if res.RowsAffected != 1 {
			return nil // another re-indexer got there first: its index stands
		}
		won = true
		if err := db.Where("project_id = ?", next.ProjectID).Delete(&models.RepositoryFile{}).Error; err != nil {
			return translate(err)
		}
		for k := range files {
			f := &files[k]
			f.ID, f.ProjectID, f.Ref = 0, next.ProjectID, next.Ref
			f.CreatedAt, f.UpdatedAt = now, now
		}
		if len(files) > 0 {
			if err := db.CreateInBatches(files, codeIndexBatch).Error; err != nil {
				return translate(err)
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("replace the code index of project %d with %s@%.12s: %w", next.ProjectID, next.Ref, next.LastCommit, err)
	}
	return won, nil
}
