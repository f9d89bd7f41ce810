package models

import (
	"strings"
	"time"
)

// Project is a GitLab project (table projects). PathWithNamespace is the
// namespace's full path and the project path joined by "/", e.g.
// "gitlab-org/gitlab-mcp"; it is unique (case-insensitively).
type Project struct {
	ID                int64      `gorm:"primaryKey" json:"id"`
	Name              string     `json:"name"`
	Path              string     `json:"path"`
	NamespaceID       int64      `json:"namespace_id"`
	PathWithNamespace string     `json:"path_with_namespace"`
	Description       string     `json:"description"`
	Visibility        Visibility `json:"visibility"`
	DefaultBranch     string     `json:"default_branch"`
	Archived          bool       `json:"archived"`
	// MergeMethod is GitLab's merge method setting: MergeMethodMerge,
	// MergeMethodRebaseMerge or MergeMethodFastForward.
	MergeMethod string `gorm:"default:merge" json:"merge_method"`
	// ForkedFromProjectID is the project this one was forked from (nil:
	// not a fork, or its source was deleted).
	ForkedFromProjectID *int64    `json:"forked_from_project_id"`
	CreatedAt           time.Time `json:"created_at"`
	UpdatedAt           time.Time `json:"updated_at"`

	Namespace *Group `gorm:"foreignKey:NamespaceID" json:"-"`
}

// GitLab's merge methods (projects.merge_method).
const (
	MergeMethodMerge       = "merge"        // a merge commit
	MergeMethodRebaseMerge = "rebase_merge" // a merge commit, only when fast-forward is possible
	MergeMethodFastForward = "ff"           // fast-forward only, no merge commit
)

// WebURL returns the project's page on the instance at baseURL
// (e.g. "https://gitlab.example.com"), GitLab's web_url.
func (p *Project) WebURL(baseURL string) string {
	return strings.TrimRight(baseURL, "/") + "/" + p.PathWithNamespace
}
