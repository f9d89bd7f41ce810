package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// CatalogVersion returns the catalog version: a counter bumped by every
// change to a tool definition. It starts at 0 on a fresh database.
func (s *Tools) CatalogVersion(ctx context.Context) (int64, error) {
	var st models.CatalogState
	if err := s.conn(ctx).Where("id = 1").Take(&st).Error; err != nil {
		return 0, fmt.Errorf("read catalog version: %w", translate(err))
	}
	return st.Version, nil
}

// bumpCatalogVersion adds one to the catalog version. It belongs in the
// transaction of the change it announces.
func (s *Tools) bumpCatalogVersion(ctx context.Context) error {
	res := s.conn(ctx).Model(&models.CatalogState{}).Where("id = 1").Updates(map[string]any{
		"version":    gorm.Expr("version + 1"),
		"updated_at": s.clock(),
	})
	if res.Error != nil {
		return fmt.Errorf("bump catalog version: %w", translate(res.Error))
	}
	if res.RowsAffected != 1 {
		return fmt.Errorf("bump catalog version: catalog_versions row missing: %w", models.ErrNotFound)
	}
	return nil
}
