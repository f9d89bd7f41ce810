package models

import (
	"strings"
	"time"
)

// DefaultOAuthExpiresIn is GitLab's access token lifetime (Doorkeeper's
// access_token_expires_in, also the column default): two hours.
const DefaultOAuthExpiresIn = 7200

// OAuthAccessToken is a GitLab OAuth access token (table
// oauth_access_tokens, Doorkeeper's columns). Token holds the SHA-512 hex
// digest of the token (or, on rows written before GitLab moved to SHA-512,
// its PBKDF2-SHA512 form); never the token.
type OAuthAccessToken struct {
	ID int64 `gorm:"primaryKey" json:"id"`
	// ResourceOwnerID is the user; nil for client-credentials tokens,
	// which name no user and are never accepted here.
	ResourceOwnerID *int64  `json:"resource_owner_id"`
	ApplicationID   *int64  `json:"application_id"`
	Token           string  `json:"-"`
	RefreshToken    *string `json:"-"`
	// ExpiresIn is the lifetime in seconds from CreatedAt; nil never
	// expires.
	ExpiresIn *int       `json:"expires_in"`
	RevokedAt *time.Time `json:"revoked_at"`
	CreatedAt time.Time  `json:"created_at"`
	// Scopes is space separated, as Doorkeeper stores them.
	Scopes               string `json:"scopes"`
	PreviousRefreshToken string `json:"-"`
	OrganizationID       int64  `json:"organization_id"`

	User *User `gorm:"foreignKey:ResourceOwnerID" json:"-"`
}

// TableName is GitLab's table name (gorm would say o_auth_access_tokens).
func (OAuthAccessToken) TableName() string { return "oauth_access_tokens" }

// ScopeList returns the scopes as a list.
func (t *OAuthAccessToken) ScopeList() []string { return strings.Fields(t.Scopes) }

// Expired reports whether the token has expired at now: from CreatedAt +
// ExpiresIn on (Doorkeeper's rule).
func (t *OAuthAccessToken) Expired(now time.Time) bool {
	if t.ExpiresIn == nil {
		return false
	}
	return !now.Before(t.CreatedAt.Add(time.Duration(*t.ExpiresIn) * time.Second))
}

// Revoked reports whether the token is revoked at now (Doorkeeper: a
// revoked_at in the future is a scheduled revocation, not yet in effect).
func (t *OAuthAccessToken) Revoked(now time.Time) bool {
	return t.RevokedAt != nil && !now.Before(*t.RevokedAt)
}
