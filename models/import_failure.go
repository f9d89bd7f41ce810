package models

import "time"

// ImportFailure is a record of a project export archive that the import
// could not save (table import_failures, GitLab's import_failures): the
// relation it belongs to (its ndjson file, e.g. "issues"), the line of
// that file, and what was wrong, in words. The rest of the project was
// imported.
type ImportFailure struct {
	ID          int64     `gorm:"primaryKey" json:"id"`
	ProjectID   int64     `json:"project_id"`
	RelationKey string    `json:"relation_key"`
	Line        int       `json:"line"`
	Message     string    `json:"message"`
	CreatedAt   time.Time `json:"created_at"`
}
