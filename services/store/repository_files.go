package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateRepositoryFile stores f at f.FilePath on branch f.Ref of project
// f.ProjectID, filling Size, BlobID (git's blob id of the content), ID and
// timestamps. A leading "/" is dropped from the path. A file already at
// that path and ref is models.ErrConflict; an empty ref or path, a path
// with "." or ".." segments, or a missing project is
// models.ErrInvalidInput.
func (s *Store) CreateRepositoryFile(ctx context.Context, f *models.RepositoryFile) error {
	f.FilePath = strings.TrimPrefix(f.FilePath, "/")
	if strings.TrimSpace(f.Ref) == "" || !validFilePath(f.FilePath) {
		return fmt.Errorf("create file %q@%q in project %d: %w", f.FilePath, f.Ref, f.ProjectID, models.ErrInvalidInput)
	}
	f.Size = int64(len(f.Content))
	f.BlobID = models.GitBlobID(f.Content)
	f.ID = 0
	if err := s.conn(ctx).Create(f).Error; err != nil {
		return fmt.Errorf("create file %q@%q in project %d: %w", f.FilePath, f.Ref, f.ProjectID, translate(err))
	}
	return nil
}

func validFilePath(p string) bool {
	if p == "" || strings.HasSuffix(p, "/") {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
