package models

import "time"

// Token scopes understood by glmcp (GitLab's names).
const (
	ScopeAPI         = "api"
	ScopeReadAPI     = "read_api"
	ScopeMCP         = "mcp"
	ScopeMCPOrbit    = "mcp_orbit"
	ScopeAIWorkflows = "ai_workflows"
)

// PersonalAccessToken is a GitLab personal access token (table
// personal_access_tokens). Only the digest of the token is ever stored.
type PersonalAccessToken struct {
	ID          int64      `gorm:"primaryKey" json:"id"`
	UserID      int64      `json:"user_id"`
	Name        string     `json:"name"`
	TokenDigest string     `json:"-"`
	Scopes      StringList `gorm:"type:text" json:"scopes"`
	// ExpiresAt is a date (no time of day): the token is expired from
	// midnight UTC of that day on. Nil means it never expires.
	ExpiresAt  *time.Time `gorm:"type:date" json:"expires_at"`
	Revoked    bool       `json:"revoked"`
	LastUsedAt *time.Time `json:"last_used_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`

	User *User `gorm:"foreignKey:UserID" json:"-"`
}

// Expired reports whether the token has expired at now.
func (t *PersonalAccessToken) Expired(now time.Time) bool {
	if t.ExpiresAt == nil {
		return false
	}
	e := t.ExpiresAt.UTC()
	midnight := time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, time.UTC)
	return !now.Before(midnight)
}
