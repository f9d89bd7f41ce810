package auth

import (
	"slices"

	"gitlab.com/glmcp/glmcp/models"
)

// Method says how a caller authenticated.
type Method string

// Authentication methods.
const (
	MethodPAT   Method = "personal_access_token"
	MethodOAuth Method = "oauth"
)

// Identity is an authenticated caller.
type Identity struct {
	User   *models.User
	Method Method
	// TokenID is the personal access token's id (0 for OAuth).
	TokenID int64
	// OAuthTokenID is the oauth_access_tokens row of an opaque OAuth
	// token (0 otherwise, and for JWTs).
	OAuthTokenID int64
	Scopes       []string
	// ReadOnly is set when the identity may only use read-only tools.
	ReadOnly bool
}

// GroupScopes describes what one route group accepts.
type GroupScopes struct {
	// Full grants every tool of the group.
	Full []string
	// ReadOnly grants read-only tools only (read_api on the CE group).
	ReadOnly []string
	// Needed is the scope a client should ask for when it has none.
	Needed string
}

// CEScopes and EEScopes are the scopes of the two route groups (DESIGN.md §1).
var (
	CEScopes = GroupScopes{
		Full:     []string{models.ScopeMCP, models.ScopeAPI},
		ReadOnly: []string{models.ScopeReadAPI},
		Needed:   models.ScopeMCP,
	}
	EEScopes = GroupScopes{
		Full:   []string{models.ScopeMCPOrbit, models.ScopeMCP, models.ScopeAPI, models.ScopeAIWorkflows},
		Needed: models.ScopeMCPOrbit,
	}
)

// Authorize checks id's scopes against g and sets id.ReadOnly. It returns an
// InsufficientScope *Error when no accepted scope is present.
func (g GroupScopes) Authorize(id *Identity) error {
	for _, s := range g.Full {
		if slices.Contains(id.Scopes, s) {
			id.ReadOnly = false
			return nil
		}
	}
	for _, s := range g.ReadOnly {
		if slices.Contains(id.Scopes, s) {
			id.ReadOnly = true
			return nil
		}
	}
	return &Error{
		Kind:      InsufficientScope,
		Presented: true,
		Scope:     g.Needed,
		Reason:    "The request requires higher privileges than provided by the access token.",
	}
}
