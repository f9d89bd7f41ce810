package auth

// Kind classifies an authentication failure; the middleware maps it to an
// HTTP status and challenge.
type Kind int

// Failure kinds.
const (
	// Unauthenticated: no usable credential (401, error="invalid_token"
	// when a token was presented).
	Unauthenticated Kind = iota + 1
	// UserForbidden: a valid credential whose user may not use the API
	// (blocked, deactivated, no EE seat): 403 with the reason.
	UserForbidden
	// InsufficientScope: a valid credential lacking a scope (403,
	// error="insufficient_scope", scope="<Scope>").
	InsufficientScope
)

// Error is an authentication or authorization failure. Reason is safe to
// show to the caller (error_description): it never contains the token.
type Error struct {
	Kind Kind
	// Presented reports whether a credential was sent at all.
	Presented bool
	Reason    string
	// Scope is the scope needed, for InsufficientScope.
	Scope string
}

func (e *Error) Error() string { return e.Reason }

func unauthenticated(reason string) *Error {
	return &Error{Kind: Unauthenticated, Presented: true, Reason: reason}
}
