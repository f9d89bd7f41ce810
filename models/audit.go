package models

import "time"

// AuditEventToolInvoked is GitLab's audit event name for an MCP tool call.
const AuditEventToolInvoked = "ai_tool_invoked"

// AuditOutcome is how a tool call ended.
type AuditOutcome string

// Audit outcomes (doc/security.md, "Audit events").
const (
	AuditSuccess   AuditOutcome = "success"    // the tool answered
	AuditToolError AuditOutcome = "tool_error" // the tool answered with isError
	AuditRefused   AuditOutcome = "refused"    // a rule, secret push protection or an approval refused it
	AuditFailed    AuditOutcome = "failed"     // a JSON-RPC error: unknown tool, bad params, server failure
)

// AuditEvent is one tools/call, shaped like GitLab's ai_tool_invoked: who,
// through which token and client, which tool on which target, how it
// ended and how long it took. It never holds argument values: only the
// names of the arguments sent.
type AuditEvent struct {
	ID            int64
	CreatedAt     time.Time
	EventName     string
	UserID        int64
	Username      string
	TokenID       int64
	ClientName    string
	ClientVersion string
	Tool          string
	// Target is the project or group the arguments name (as written: a
	// path or an id), TargetType "project", "group" or "".
	Target, TargetType string
	Outcome            AuditOutcome
	DurationMs         int64
	CorrelationID      string
	// ArgumentNames are the top-level argument names, sorted, comma-joined.
	ArgumentNames string
}

// AuditFilter narrows an audit listing; zero fields match everything.
type AuditFilter struct {
	Username string
	Target   string
	Since    time.Time
	Limit    int
}
