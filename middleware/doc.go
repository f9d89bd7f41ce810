// Package middleware holds glmcp's gin middleware: request ids, the access
// log, panic recovery, the Origin check and authentication.
//
// Request-scoped values travel in the request context through typed keys
// with accessors (IdentityFrom, Fields). It imports services/auth for the
// identity type but no store code.
package middleware
