package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
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
	e.ArgumentNames, e.Target, e.TargetType = arguments(req.Arguments)
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
// as written; values are read for nothing else. It walks the top level of
// the object once, skipping every value but those three (decoding the
// arguments into a map cost a call more than the rest of its event).
func arguments(raw json.RawMessage) (names, target, targetType string) {
	keys, refs, ok := topLevel(raw)
	if !ok {
		return "", "", ""
	}
	sort.Strings(keys)
	keys = slices.Compact(keys) // a repeated member is one argument
	names = truncateRunes(strings.Join(keys, ","), 2000)
	switch {
	case refs[0] != "":
		return names, refs[0], "project"
	case refs[1] != "":
		return names, refs[1], "namespace"
	case refs[2] != "":
		return names, refs[2], "group"
	}
	return names, "", ""
}

// refKeys are the arguments that name a target, in arguments' order.
var refKeys = [3]string{"project_id", "full_path", "group_id"}

// topLevel reads the members of the JSON object raw: their names
// (truncated), and the values of refKeys that are a non-empty string
// (truncated) or a number. ok is false when raw is not an object. The
// arguments come from a decoded envelope, so they are valid JSON; a
// malformed document ends the walk (ok false), never a panic.
func topLevel(raw []byte) (keys []string, refs [3]string, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, refs, false
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return nil, refs, false
		}
		if raw[i] == '}' {
			return keys, refs, true
		}
		if raw[i] != '"' {
			return nil, refs, false
		}
		end := stringEnd(raw, i)
		if end <= i {
			return nil, refs, false
		}
		quoted := raw[i : end+1]
		var key string
		if bytes.IndexByte(quoted, '\\') >= 0 {
			if json.Unmarshal(quoted, &key) != nil {
				return nil, refs, false
			}
		} else {
			key = string(quoted[1 : len(quoted)-1])
		}
		keys = append(keys, truncateRunes(key, 64))
		i = skipSpace(raw, end+1)
		if i >= len(raw) || raw[i] != ':' {
			return nil, refs, false
		}
		i = skipSpace(raw, i+1)
		vend := valueEnd(raw, i)
		if vend <= i {
			return nil, refs, false
		}
		for k, name := range refKeys {
			if key == name {
				refs[k] = refValue(raw[i:vend])
			}
		}
		i = skipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}

// refValue is a target argument's value as written: a string's text, a
// number's digits; "" for anything else.
func refValue(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return ""
		}
		return truncateRunes(s, 255)
	case c == '-' || c >= '0' && c <= '9':
		var f float64
		if json.Unmarshal(v, &f) != nil {
			return ""
		}
		b, _ := json.Marshal(f)
		return string(b)
	}
	return ""
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index of the quote closing the string at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b) - 1
}

// valueEnd is the index just after the value starting at b[i] (valid
// JSON).
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i) + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j)
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return j
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
