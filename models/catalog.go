package models

import "time"

// CatalogState is the single row of table catalog_versions. Version grows by
// one with every change to a tool definition (create, edit, enable,
// disable), in the same transaction as the change, so every instance can
// tell whether its view of the catalog is current.
type CatalogState struct {
	ID        int64     `gorm:"primaryKey" json:"-"`
	Version   int64     `json:"version"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TableName maps CatalogState to catalog_versions.
func (CatalogState) TableName() string { return "catalog_versions" }
