package models

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// AccessLevel is a GitLab membership role, stored as GitLab's integer.
type AccessLevel int

// Access levels (GitLab's values). NoAccess is the level of a non-member.
const (
	NoAccess   AccessLevel = 0
	Guest      AccessLevel = 10
	Reporter   AccessLevel = 20
	Developer  AccessLevel = 30
	Maintainer AccessLevel = 40
	Owner      AccessLevel = 50
)

var accessLevelNames = map[AccessLevel]string{
	NoAccess:   "no_access",
	Guest:      "guest",
	Reporter:   "reporter",
	Developer:  "developer",
	Maintainer: "maintainer",
	Owner:      "owner",
}

// String returns the role's GitLab name ("developer"), or the number for an
// unknown level.
func (l AccessLevel) String() string {
	if s, ok := accessLevelNames[l]; ok {
		return s
	}
	return strconv.Itoa(int(l))
}

// Valid reports whether l is a member role (Guest through Owner).
func (l AccessLevel) Valid() bool {
	_, ok := accessLevelNames[l]
	return ok && l != NoAccess
}

// ParseAccessLevel parses a member role given by name ("Developer",
// case-insensitive) or by GitLab's number ("30"). NoAccess and unknown
// values wrap ErrInvalidInput.
func ParseAccessLevel(s string) (AccessLevel, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if n, err := strconv.Atoi(t); err == nil {
		if l := AccessLevel(n); l.Valid() {
			return l, nil
		}
		return NoAccess, fmt.Errorf("access level %q: %w", s, ErrInvalidInput)
	}
	for l, name := range accessLevelNames {
		if name == t && l != NoAccess {
			return l, nil
		}
	}
	return NoAccess, fmt.Errorf("access level %q: %w", s, ErrInvalidInput)
}

// ProjectMember is a user's direct membership of a project (table
// project_members). A user has at most one membership per project.
type ProjectMember struct {
	ID          int64       `gorm:"primaryKey" json:"id"`
	ProjectID   int64       `json:"project_id"`
	UserID      int64       `json:"user_id"`
	AccessLevel AccessLevel `json:"access_level"`
	CreatedAt   time.Time   `json:"created_at"`
	UpdatedAt   time.Time   `json:"updated_at"`
}

// GroupMember is a user's membership of a group (table namespace_members):
// it gives the user that role in every project and subgroup below the
// group, unless a closer membership grants more.
type GroupMember struct {
	ID          int64       `gorm:"primaryKey" json:"id"`
	NamespaceID int64       `json:"namespace_id"`
	UserID      int64       `json:"user_id"`
	AccessLevel AccessLevel `json:"access_level"`
	CreatedAt   time.Time   `json:"created_at"`
	UpdatedAt   time.Time   `json:"updated_at"`
}

// TableName maps GroupMember to the namespace_members table.
func (GroupMember) TableName() string { return "namespace_members" }

// Member is one row of a project's member list: the user and its role
// (with inherited members, the highest it holds).
type Member struct {
	User        User
	AccessLevel AccessLevel
}
