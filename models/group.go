package models

import "time"

// Group is a GitLab group (table namespaces, GitLab's name: groups are the
// namespaces that hold projects). FullPath is the slash-joined path of the
// group and its ancestors, e.g. "gitlab-org/ai"; it is unique
// (case-insensitively).
type Group struct {
	ID          int64      `gorm:"primaryKey" json:"id"`
	Name        string     `json:"name"`
	Path        string     `json:"path"`
	FullPath    string     `json:"full_path"`
	Description string     `json:"description"`
	ParentID    *int64     `json:"parent_id"`
	Visibility  Visibility `json:"visibility"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// TableName maps Group to GitLab's namespaces table.
func (Group) TableName() string { return "namespaces" }
