package auth

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
)

// GroupScopes describes what one route group accepts.
type GroupScopes struct {
	// Full grants every tool of the group.
	Full []string
	// ReadOnly grants read-only tools only (read_api on the CE group).
	ReadOnly []string
	// Needed is the scope a client should ask for when it has none.
	Needed string
}

// CEScopes and EEScopes are the scopes of the two route groups
// (doc/endpoint.md, "Route groups").
var (
	CEScopes = GroupScopes{
		Full:     []string{models.ScopeMCP, models.ScopeAPI},
		ReadOnly: []string{models.ScopeReadAPI},
		Needed:   models.ScopeMCP,
	}
	EEScopes = GroupScopes{
		Full:   []string{models.ScopeMCPOrbit, models.ScopeMCP, models.ScopeAPI, models.ScopeAIWorkflows},
		Needed: models.ScopeMCPOrbit,
	}
)

// Authorize checks id's scopes against g and sets id.ReadOnly. It returns an
// InsufficientScope *Error when no accepted scope is present, whose reason
// names the credential, its scopes, what the group accepts and what to do.
func (g GroupScopes) Authorize(id *models.Identity) error {
	for _, s := range g.Full {
		if slices.Contains(id.Scopes, s) {
			id.ReadOnly = false
			return nil
		}
	}
	for _, s := range g.ReadOnly {
		if slices.Contains(id.Scopes, s) {
			id.ReadOnly = true
			return nil
		}
	}
	return &Error{
		Kind:      InsufficientScope,
		Presented: true,
		Scope:     g.Needed,
		Reason:    g.scopeReason(id),
	}
}

// scopeReason says why id's scopes are not enough for g, the token's own
// scopes last (the part a client may cut), e.g. "Personal access token
// lacks a scope this endpoint accepts (mcp_orbit, mcp, api or
// ai_workflows). Create a token with the mcp scope. Its scopes: read_api."
func (g GroupScopes) scopeReason(id *models.Identity) string {
	has := "none"
	if len(id.Scopes) > 0 {
		list, more := id.Scopes, ""
		if len(list) > 5 {
			list, more = list[:5], " (+"+strconv.Itoa(len(list)-5)+" more)"
		}
		has = truncateReason(strings.Join(list, ", "), 80) + more
	}
	accepts := orList(g.Full)
	if len(g.ReadOnly) > 0 {
		accepts += "; " + orList(g.ReadOnly) + " for read-only tools"
	}
	if id.Method == models.MethodOAuth {
		return "OAuth access token lacks a scope this endpoint accepts (" + accepts +
			"). Sign in again granting the " + g.Needed + " scope. Its scopes: " + has + "."
	}
	return "Personal access token lacks a scope this endpoint accepts (" + accepts +
		"). Create a token with the " + models.ScopeMCP + " scope. Its scopes: " + has + "."
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// truncateReason cuts s to at most n bytes, on a rune boundary.
func truncateReason(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
