package middleware

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
)

type identityKey struct{}
type fieldsKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id *models.Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the authenticated caller, or nil.
func IdentityFrom(ctx context.Context) *models.Identity {
	id, _ := ctx.Value(identityKey{}).(*models.Identity)
	return id
}

// LogFields are filled in by handlers during a request and written by the
// access log once the request ends. Zero values are omitted.
type LogFields struct {
	RequestID     string
	UserID        int64
	Era           string
	RPCMethod     string
	Tool          string
	ClientName    string
	ClientVersion string
	RPCCode       int
	// RPCClass names the RPCCode error for logs and metrics, told apart
	// by its status ("invalid_params", "store_unavailable", …); whoever
	// writes the error sets both (jsonrpc.Error.Class).
	RPCClass string
	// Outcome and ErrorClass: how a tools/call ended (see ToolOutcome);
	// set by the handler, derived from the status, RPCCode and RPCClass
	// otherwise.
	Outcome    string
	ErrorClass string
	// AuthError and Reason explain a refused request (401, 403): the kind
	// of failure (unauthenticated, user_forbidden, insufficient_scope,
	// origin) and the reason given to the client, which never holds the
	// credential.
	AuthError string
	Reason    string
}

// Fields returns the request's mutable log fields (a throwaway value when the
// access log middleware is not installed, so callers never check for nil).
func Fields(ctx context.Context) *LogFields {
	if f, ok := ctx.Value(fieldsKey{}).(*LogFields); ok {
		return f
	}
	return &LogFields{}
}
