package models

import "time"

// Label is a project label (table labels). Name is unique per project.
// Color is "#RRGGBB".
type Label struct {
	ID          int64  `gorm:"primaryKey" json:"id"`
	ProjectID   int64  `json:"project_id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	// Priority is the label's priority in its project (GitLab's
	// label_priorities; lower first), nil when it has none. Kept for the
	// project export archive.
	Priority  *int      `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}
