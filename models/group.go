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

// ProjectQuery selects one page of a project listing (GitLab's
// list_projects). Without GroupPath: the projects where Viewer holds at
// least MinAccess (Guest when unset). With GroupPath and neither MinAccess
// nor Visibility: every project Viewer may read in the group and its
// subgroups; with either of them: the group's own projects only (GitLab's
// Query.projects branch), filtered.
type ProjectQuery struct {
	Viewer     *User
	GroupPath  string
	MinAccess  AccessLevel
	Search     string
	Visibility Visibility
	// Archived is "only", "include" or "exclude" (the default).
	Archived string
	AfterID  int64
	Limit    int
}

// SubgroupsIncluded reports whether q lists the group's subgroups too.
func (q ProjectQuery) SubgroupsIncluded() bool {
	return q.GroupPath != "" && q.MinAccess == NoAccess && q.Visibility == ""
}

// GroupQuery selects one page of a group listing (GitLab's list_groups).
// Without ParentID: the top-level groups Viewer is a member of (any depth
// with IncludeSubgroups). With ParentID: the parent's direct subgroups
// Viewer may see (all descendants with IncludeSubgroups).
type GroupQuery struct {
	Viewer           *User
	ParentID         int64
	IncludeSubgroups bool
	Search           string
	Visibility       Visibility
	AfterID          int64
	Limit            int
}
