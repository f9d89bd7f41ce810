// Package middleware holds glmcp's gin middleware: request ids, the access
// log, panic recovery, the Origin check and authentication.
//
// It knows HTTP and GitLab, not JSON-RPC: a middleware that refuses a
// request says what happened in its own terms ([Refusal], a
// *ratelimit.Exceeded), sets the headers it owns (a Bearer challenge, the
// RateLimit fields) and stops with [Refuse]; the handlers layer above
// writes the JSON-RPC error (handlers.RenderRefusals). Authentication
// failures keep GitLab's own bodies, written here ([WriteAuthError]).
//
// Request-scoped values travel in the request context through typed keys
// with accessors (IdentityFrom, Fields). It imports services/auth for the
// identity type but no store code.
package middleware
