package models

// AuthMethod says how a caller authenticated.
type AuthMethod string

// Authentication methods.
const (
	MethodPAT   AuthMethod = "personal_access_token"
	MethodOAuth AuthMethod = "oauth"
)

// Identity is an authenticated caller (services/auth builds it).
type Identity struct {
	User   *User
	Method AuthMethod
	// TokenID is the personal access token's id (0 for OAuth).
	TokenID int64
	// OAuthTokenID is the oauth_access_tokens row of an opaque OAuth
	// token (0 otherwise, and for JWTs).
	OAuthTokenID int64
	Scopes       []string
	// ReadOnly is set when the identity may only use read-only tools.
	ReadOnly bool
}
