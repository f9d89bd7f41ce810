package models

import "time"

// Release is a release of a project (table releases): a tag of its
// repository with a name, notes and asset links. ReleasedAt in the future
// makes it an upcoming release.
type Release struct {
	ID          int64         `gorm:"primaryKey" json:"id"`
	ProjectID   int64         `json:"project_id"`
	Tag         string        `json:"tag_name"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	AuthorID    *int64        `json:"author_id"`
	ReleasedAt  time.Time     `json:"released_at"`
	CreatedAt   time.Time     `json:"created_at"`
	UpdatedAt   time.Time     `json:"updated_at"`
	Links       []ReleaseLink `gorm:"foreignKey:ReleaseID" json:"links"`
	// LinkCount is how many links the release has (Links may hold only
	// the first few); filled by the store's reads.
	LinkCount int `gorm:"-" json:"-"`
}

// ReleaseLink is an asset link of a release (table release_links).
type ReleaseLink struct {
	ID        int64     `gorm:"primaryKey" json:"id"`
	ReleaseID int64     `json:"-"`
	Name      string    `json:"name"`
	URL       string    `gorm:"column:url" json:"url"`
	LinkType  string    `json:"link_type"`
	CreatedAt time.Time `json:"created_at"`
}

// Release states list_releases filters by.
const (
	ReleasesReleased = "released"
	ReleasesUpcoming = "upcoming"
	ReleasesAll      = "all"
)

// ReleaseQuery selects a page of a project's releases, most recently
// released first.
type ReleaseQuery struct {
	ProjectID int64
	State     string    // ReleasesReleased (default), ReleasesUpcoming or ReleasesAll
	Now       time.Time // what "upcoming" is relative to
	Offset    int
	Limit     int
	// MaxLinks bounds the links loaded per release (LinkCount has them all).
	MaxLinks int
}
