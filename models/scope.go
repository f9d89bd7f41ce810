package models

// Headers are the raw values of GitLab's three tool filter headers ("" when
// absent; a repeated header joined with commas). See services/catalog's
// HeaderEnabledTools, HeaderEnabledToolsets and HeaderToolNamePrefix.
type Headers struct {
	Tools, Toolsets, Prefix string
}

// Scope is who asks and through which lens: the route group's edition, the
// caller, and the filter headers. The tool service (services/tools) applies
// every rule about which tools exist for a caller to a Scope, and nowhere
// else.
type Scope struct {
	Edition  Edition
	Identity *Identity
	Headers  Headers
	// ReadOnlyMode is the read-only switch (GLMCP_READ_ONLY, or the
	// client's X-Gitlab-Mcp-Read-Only header): write tools are neither
	// listed nor callable, whatever the token's scopes.
	ReadOnlyMode bool
	// Lockdown is the lockdown switch (GLMCP_LOCKDOWN, or the client's
	// X-Gitlab-Mcp-Lockdown header): see doc/security.md.
	Lockdown bool
}

// ReadOnly reports a read_api token: it sees and calls only tools
// annotated readOnlyHint: true.
func (sc Scope) ReadOnly() bool { return sc.Identity != nil && sc.Identity.ReadOnly }

// WritesHidden reports whether write tools are left out of the caller's
// tools/list: a read_api token, or read-only mode.
func (sc Scope) WritesHidden() bool { return sc.ReadOnly() || sc.ReadOnlyMode }
