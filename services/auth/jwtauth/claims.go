package jwtauth

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Claims are the facts a verified access token asserts.
type Claims struct {
	// Subject is the sub claim as sent.
	Subject string
	// UserID is the GitLab user id, when the user claim is "sub".
	UserID int64
	// Username is the user claim's value, when it is not "sub".
	Username string
	// Scopes are the granted scopes, from scope (space separated) and scp
	// (an array, or a space separated string), deduplicated, in order.
	Scopes []string
	// Audience is the aud claim.
	Audience []string
	// ExpiresAt is the exp claim.
	ExpiresAt time.Time
	// ClientID is the OAuth client the token was issued to (client_id, or
	// azp when client_id is absent).
	ClientID string
	// JTI is the token's identifier (jti), if any.
	JTI string
}

// HasScope reports whether the token grants scope.
func (c *Claims) HasScope(scope string) bool {
	for _, s := range c.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// accessClaims is the wire form of an RFC 9068 access token's claims.
type accessClaims struct {
	jwt.RegisteredClaims
	Scope    scopeList `json:"scope"`
	Scp      scopeList `json:"scp"`
	ClientID string    `json:"client_id"`
	AZP      string    `json:"azp"`

	// userClaim is the claim to capture into user (set before decoding).
	userClaim string
	user      json.RawMessage
}

// UnmarshalJSON decodes the registered and scope claims, and captures the
// configured user claim whatever its name.
func (c *accessClaims) UnmarshalJSON(b []byte) error {
	type plain accessClaims
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	if c.userClaim == "" || c.userClaim == "sub" {
		return nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	c.user = all[c.userClaim]
	return nil
}

// scopes returns scope and scp merged, without duplicates.
func (c *accessClaims) scopes() []string {
	out := make([]string, 0, len(c.Scope)+len(c.Scp))
	seen := make(map[string]bool, cap(out))
	for _, s := range append(append([]string(nil), c.Scope...), c.Scp...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// scopeList decodes a scope claim given as a space separated string
// (RFC 8693 §4.2, RFC 9068) or as an array of strings.
type scopeList []string

func (l *scopeList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = strings.Fields(s)
		return nil
	}
	var arr []string
	if err := json.Unmarshal(b, &arr); err != nil {
		return errors.New("scope claim is neither a string nor an array of strings")
	}
	var out []string
	for _, s := range arr {
		out = append(out, strings.Fields(s)...)
	}
	*l = out
	return nil
}
