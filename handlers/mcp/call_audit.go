package mcp

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/models"
)

// auditCall is the SAFETY HOOK of the audit trail: once a tools/call is
// answered, whatever the answer, it hands Deps.Audit its event (GitLab's
// ai_tool_invoked): the caller, token and client, the tool and the
// project or group its arguments name, the outcome, the duration and the
// request id. Of the arguments only the names are kept.
func (s *Server) auditCall(x *exchange, start time.Time) {
	if s.audit == nil || x.req == nil || x.req.Method != MethodCallTool || x.req.IsNotification() {
		return
	}
	e := models.AuditEvent{
		CreatedAt:     start,
		ClientName:    x.fields.ClientName,
		ClientVersion: x.fields.ClientVersion,
		Tool:          x.fields.Tool,
		DurationMs:    time.Since(start).Milliseconds(),
		CorrelationID: x.fields.RequestID,
	}
	if x.id != nil && x.id.User != nil {
		e.UserID, e.Username, e.TokenID = x.id.User.ID, x.id.User.Username, x.id.TokenID
	}
	// The params as the method decoded them (nil when they did not fit).
	if p, ok := x.params.(*callToolParams); ok && p != nil {
		if e.Tool == "" {
			e.Tool = truncateRunes(p.mcpName(), 255)
		}
		e.ArgumentNames, e.Target, e.TargetType = auditArguments(p.Arguments)
	}
	switch x.fields.Outcome {
	case middleware.OutcomeOK:
		e.Outcome = models.AuditSuccess
	case middleware.OutcomeToolError:
		e.Outcome = models.AuditToolError
	case middleware.OutcomeRefused:
		e.Outcome = models.AuditRefused
	default:
		e.Outcome = models.AuditFailed
	}
	s.audit(e)
}

// auditArguments returns the sorted argument names and the target the
// arguments name: project_id (or a project's full_path), else group_id,
// as written; values are read for nothing else.
func auditArguments(raw json.RawMessage) (names, target, targetType string) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", "", ""
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return "", "", ""
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, truncateRunes(k, 64))
	}
	sort.Strings(keys)
	names = truncateRunes(strings.Join(keys, ","), 2000)
	ref := func(k string) string {
		var v any
		if json.Unmarshal(args[k], &v) != nil {
			return ""
		}
		switch t := v.(type) {
		case string:
			return truncateRunes(t, 255)
		case float64:
			return jsonNumber(t)
		}
		return ""
	}
	switch {
	case ref("project_id") != "":
		return names, ref("project_id"), "project"
	case ref("full_path") != "":
		return names, ref("full_path"), "namespace"
	case ref("group_id") != "":
		return names, ref("group_id"), "group"
	}
	return names, "", ""
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
