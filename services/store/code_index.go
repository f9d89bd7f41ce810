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
func (s *CodeIndex) IndexStatus(ctx context.Context, projectID int64) (*models.IndexStatus, error) {
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
func (s *CodeIndex) ReplaceCodeIndex(ctx context.Context, prev *models.IndexStatus, next *models.IndexStatus, files []models.RepositoryFile) (bool, error) {
	now := s.clock()
	next.IndexedAt, next.Files = now, len(files)
	won := false
	err := s.st.WithTx(ctx, func(tx *Store) error {
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

// codeIndexPathBatch is how many paths one `file_path IN (...)` names.
const codeIndexPathBatch = 500

// UpdateCodeIndex moves project next.ProjectID's code index from prev
// (not nil) to next by rows: the rows at paths remove and at the paths of
// files go, then files are inserted (it fills next's Files and IndexedAt).
// It is one transaction under the compare-and-swap of ReplaceCodeIndex,
// on prev.Ref and prev.LastCommit, taken before any row is touched: of two
// re-indexers that read the same prev exactly one updates the rows and the
// other changes nothing. next.Ref must be prev.Ref (the rows kept are of
// that ref). check, when not nil, is called with the index's size before
// and after the update, once the compare-and-swap is won; an error from
// it rolls the transaction back and is returned (wrapped). It reports
// whether it updated the index.
func (s *CodeIndex) UpdateCodeIndex(ctx context.Context, prev *models.IndexStatus, next *models.IndexStatus, remove []string, files []models.RepositoryFile, check func(before, after models.CodeIndexSize) error) (bool, error) {
	if prev == nil || prev.Ref != next.Ref {
		return false, fmt.Errorf("update the code index of project %d: from %v to ref %q: %w", next.ProjectID, prev, next.Ref, models.ErrInvalidInput)
	}
	now := s.clock()
	paths := make([]string, 0, len(remove)+len(files))
	seen := make(map[string]bool, cap(paths))
	for _, p := range remove {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	var added models.CodeIndexSize
	for k := range files {
		f := &files[k]
		f.ID, f.ProjectID, f.Ref = 0, next.ProjectID, next.Ref
		f.CreatedAt, f.UpdatedAt = now, now
		added.Files++
		added.Bytes += f.Size
		if !seen[f.FilePath] {
			seen[f.FilePath] = true
			paths = append(paths, f.FilePath)
		}
	}
	won := false
	err := s.st.WithTx(ctx, func(tx *Store) error {
		db := tx.conn(ctx)
		res := db.Model(&models.IndexStatus{}).
			Where("project_id = ? AND ref = ? AND last_commit = ?", next.ProjectID, prev.Ref, prev.LastCommit).
			Updates(map[string]any{"last_commit": next.LastCommit, "indexed_at": now})
		if res.Error != nil {
			return translate(res.Error)
		}
		if res.RowsAffected != 1 {
			return nil // another re-indexer got there first: its index stands
		}
		rows := func() *gorm.DB {
			return db.Model(&models.RepositoryFile{}).Select("COUNT(*) AS files, COALESCE(SUM(size), 0) AS bytes").
				Where("project_id = ?", next.ProjectID)
		}
		var before models.CodeIndexSize
		if err := rows().Scan(&before).Error; err != nil {
			return translate(err)
		}
		after := before
		for i := 0; i < len(paths); i += codeIndexPathBatch {
			batch := paths[i:min(i+codeIndexPathBatch, len(paths))]
			var gone models.CodeIndexSize
			if err := rows().Where("file_path IN ?", batch).Scan(&gone).Error; err != nil {
				return translate(err)
			}
			if err := db.Where("project_id = ? AND file_path IN ?", next.ProjectID, batch).Delete(&models.RepositoryFile{}).Error; err != nil {
				return translate(err)
			}
			after.Files -= gone.Files
			after.Bytes -= gone.Bytes
		}
		after.Files += added.Files
		after.Bytes += added.Bytes
		if check != nil {
			if err := check(before, after); err != nil {
				return err
			}
		}
		if len(files) > 0 {
			if err := db.CreateInBatches(files, codeIndexBatch).Error; err != nil {
				return translate(err)
			}
		}
		if err := db.Model(&models.IndexStatus{}).Where("project_id = ?", next.ProjectID).Update("files", after.Files).Error; err != nil {
			return translate(err)
		}
		next.IndexedAt, next.Files = now, after.Files
		won = true
		return nil
	})
	if err != nil {
		for k := range files {
			files[k].ID = 0
		}
		return false, fmt.Errorf("update the code index of project %d to %s@%.12s: %w", next.ProjectID, next.Ref, next.LastCommit, err)
	}
	return won, nil
}
