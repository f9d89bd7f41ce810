package audit

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Link is the audit link of the tools/call chain (an Outer link, first of
// all): once a client's tools/call has come back up the chain, whatever
// it ended with, it hands record its event (GitLab's ai_tool_invoked): the
// caller, token and client, the tool, the project or group the call
// acted on, the outcome, the duration and the request id. Of the
// arguments only the names are kept. A call without a Caller (a
// resources/read reading through a tool) is not a tools/call and is not
// recorded.
func Link(record func(models.AuditEvent)) tools.Link {
	return tools.Link{Name: "audit", Run: func(ctx context.Context, inv *tools.Invocation) (*tools.Result, error) {
		if inv.Request.Caller == nil {
			return inv.Next(ctx)
		}
		start := time.Now()
		res, err := inv.Next(ctx)
		record(event(inv, start, res, err))
		return res, err
	}}
}

// event is the audit event of inv, which ended with res or err.
func event(inv *tools.Invocation, start time.Time, res *tools.Result, err error) models.AuditEvent {
	req := &inv.Request
	e := models.AuditEvent{
		CreatedAt:     start,
		ClientName:    req.Caller.ClientName,
		ClientVersion: req.Caller.ClientVersion,
		Tool:          truncateRunes(req.Name, 255),
		DurationMs:    time.Since(start).Milliseconds(),
		CorrelationID: req.Caller.RequestID,
	}
	if inv.Entry != nil {
		e.Tool = inv.Entry.Tool.Name // aliases resolved
	}
	if id := req.Identity; id != nil && id.User != nil {
		e.UserID, e.Username, e.TokenID = id.User.ID, id.User.Username, id.TokenID
	}
	e.ArgumentNames, e.Target, e.TargetType = arguments(req)
	// Where the target link resolved the call's project or group, that
	// is the target: canonical, whatever argument (an id, a path, a URL
	// of an object inside it) named it.
	if inv.Call != nil && inv.Call.Target != nil {
		switch t := inv.Call.Target; {
		case t.Project != nil:
			e.Target, e.TargetType = truncateRunes(t.Project.PathWithNamespace, 255), "project"
		case t.Group != nil:
			e.Target, e.TargetType = truncateRunes(t.Group.FullPath, 255), "group"
		}
	}
	switch {
	case err != nil || res == nil:
		e.Outcome = models.AuditFailed
	case res.Refused:
		e.Outcome = models.AuditRefused
	case res.IsError:
		e.Outcome = models.AuditToolError
	default:
		e.Outcome = models.AuditSuccess
	}
	return e
}

// arguments returns the sorted argument names and the target the
// arguments name: project_id (or a project's full_path), else group_id,
// as written (a non-empty string, or a number's digits); values are read
// for nothing else. It reads the chain's one parse of the arguments
// (tools.CallRequest.Argument with no path), made by the time the call ends
// whenever it got as far as the tool.
func arguments(req *tools.CallRequest) (names, target, targetType string) {
	v, _ := req.Argument(nil) // the whole parse: its top-level object
	m, ok := v.(map[string]any)
	if !ok {
		return "", "", ""
	}
	names = joinNames(m)
	for k, name := range refKeys {
		switch v := m[name].(type) {
		case string:
			if v != "" {
				return names, truncateRunes(v, 255), refKinds[k]
			}
		case json.Number:
			return names, v.String(), refKinds[k]
		}
	}
	return names, "", ""
}

// joinNames is m's keys, each cut to 64 characters, sorted and
// comma-joined, cut to 2,000: one allocation (the string) for the few
// arguments a call has.
func joinNames(m map[string]any) string {
	var stack [16]string
	keys := stack[:0]
	size := 0
	for k := range m {
		k = truncateRunes(k, 64)
		keys = append(keys, k)
		size += len(k) + 1
	}
	slices.Sort(keys)
	var sb strings.Builder
	sb.Grow(size)
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(k)
	}
	return truncateRunes(sb.String(), 2000)
}

var (
	refKeys  = [3]string{"project_id", "full_path", "group_id"}
	refKinds = [3]string{"project", "namespace", "group"}
)

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
