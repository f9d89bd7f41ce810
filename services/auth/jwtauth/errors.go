package jwtauth

import "errors"

// Reasons a token is refused. Each is safe for an RFC 6750
// error_description.
const (
	ReasonMalformed      = "malformed token"
	ReasonTokenType      = "wrong token type"
	ReasonAlgorithm      = "algorithm not allowed"
	ReasonUnknownKey     = "unknown signing key"
	ReasonSignature      = "signature invalid"
	ReasonIssuer         = "issuer mismatch"
	ReasonAudience       = "wrong audience"
	ReasonExpired        = "token expired"
	ReasonNoExpiry       = "token has no expiry"
	ReasonNotYetValid    = "token not yet valid"
	ReasonIssuedInFuture = "token issued in the future"
	ReasonUserClaim      = "user claim missing or invalid"
	ReasonInvalidClaims  = "invalid claims"
)

// TokenError is a refused token. Reason is one of the Reason constants and
// may be shown to the client; Err is the underlying cause, for logs only.
// Neither contains the token or key material.
type TokenError struct {
	Reason string
	Err    error
}

// Error returns "invalid token: <reason>[: <cause>]".
func (e *TokenError) Error() string {
	if e.Err != nil {
		return "invalid token: " + e.Reason + ": " + e.Err.Error()
	}
	return "invalid token: " + e.Reason
}

// Unwrap returns the cause.
func (e *TokenError) Unwrap() error { return e.Err }

// ErrDisallowedAddress is the cause when a JWKS URL resolves to a loopback,
// private, link-local or other special-purpose address and
// Config.AllowPrivateJWKSHosts is not set.
var ErrDisallowedAddress = errors.New("address not allowed for jwks fetch")

var (
	errKeyNotInSet = errors.New("no matching key in key set")
	errTooSoon     = errors.New("key set reloaded less than 30s ago")
)

func tokenErr(reason string, cause error) *TokenError {
	return &TokenError{Reason: reason, Err: cause}
}
