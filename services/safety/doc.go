// Package safety holds the per-request safety switches of the MCP endpoint
// (doc/security.md): read-only mode and lockdown. Each is on for an
// instance (GLMCP_READ_ONLY, GLMCP_LOCKDOWN) or for one client through a
// request header ([HeaderReadOnly], [HeaderLockdown]); the instance setting
// is an upper bound: a header can turn a switch on, never off.
//
// The defences themselves live in the packages below it (sanitize) and in
// services/secrets; this package only decides whether a switch is on.
package safety
