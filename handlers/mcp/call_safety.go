package mcp

import (
	"bytes"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/services/safety/sanitize"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// The result _meta keys of the sanitiser (doc/security.md, "Sanitised
// text"): reverse-DNS prefixed, as MetaObject asks of keys that are not
// MCP's own.
const (
	// MetaSanitized counts what was removed from user-written text.
	MetaSanitized = "com.gitlab/sanitized"
	// MetaHiddenInCode counts the hidden characters of repository content
	// returned as it is.
	MetaHiddenInCode = "com.gitlab/hiddenCharactersInCode"
)

// hiddenInCode is MetaHiddenInCode's value: the kinds a file can hide.
type hiddenInCode struct {
	TagCharacters       int `json:"tagCharacters"`
	ZeroWidthCharacters int `json:"zeroWidthCharacters"`
	BidiControls        int `json:"bidiControls"`
}

// sanitizeResult is the SAFETY HOOK of the sanitiser: it returns tool's
// result with its user-written text cleaned (structured content, text and
// text blocks alike, so they stay consistent; a copy when anything
// changes: in is never modified, a tool may share it) and repository
// content as it is, and the _meta entries saying what it removed and
// flagged (nil: nothing).
func sanitizeResult(tool string, in *tools.Result) (*tools.Result, map[string]any) {
	keep, whole := sanitize.Code(tool)
	cp := *in
	res := &cp
	if len(in.Content) > 0 {
		res.Content = append([]tools.Content(nil), in.Content...)
	}
	var removed, flagged sanitize.Counts
	var before []byte
	switch sc := res.Structured.(type) {
	case nil:
	case tools.CompactJSON:
		before = sc
	default:
		b, err := json.Marshal(sc)
		if err != nil {
			return in, nil // the writer reports it
		}
		before = b
	}
	structured := before != nil
	if structured {
		after, r, f := sanitize.JSON(before, keep)
		removed, flagged = r, f
		if r.Total() > 0 {
			res.Structured = tools.CompactJSON(after)
		}
		if res.Text == string(before) {
			if r.Total() > 0 {
				res.Text = string(after)
			}
		} else {
			res.Text, _, _ = cleanText(res.Text, keep, whole)
		}
	} else {
		var r, f sanitize.Counts
		res.Text, r, f = cleanText(res.Text, keep, whole)
		removed.Add(r)
		flagged.Add(f)
	}
	for i := range res.Content {
		c := &res.Content[i]
		if c.Type != tools.ContentText {
			continue
		}
		t, r, f := cleanText(c.Text, keep, whole)
		c.Text = t
		if !structured && res.Text == "" {
			removed.Add(r)
			flagged.Add(f)
		}
	}
	if removed.Total() == 0 && flagged.Total() == 0 {
		return in, nil
	}
	var meta map[string]any
	if removed.Total() > 0 {
		meta = map[string]any{MetaSanitized: removed}
	}
	if flagged.Total() > 0 {
		if meta == nil {
			meta = map[string]any{}
		}
		meta[MetaHiddenInCode] = hiddenInCode{flagged.TagCharacters, flagged.ZeroWidthCharacters, flagged.BidiControls}
	}
	return res, meta
}

// cleanText cleans a text: a JSON document string by string, code only
// counted, anything else as prose.
func cleanText(s string, keep func(string) bool, whole bool) (string, sanitize.Counts, sanitize.Counts) {
	if s == "" {
		return s, sanitize.Counts{}, sanitize.Counts{}
	}
	if t := bytes.TrimSpace([]byte(s)); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		out, r, f := sanitize.JSON([]byte(s), keep)
		return string(out), r, f
	}
	if whole {
		return s, sanitize.Counts{}, sanitize.Scan([]byte(s))
	}
	out, r := sanitize.String(s)
	return out, r, sanitize.Counts{}
}

// withMeta returns the result _meta base (nil or an encoded object) with
// extra's entries added.
func withMeta(base json.RawMessage, extra map[string]any) json.RawMessage {
	if len(extra) == 0 {
		return base
	}
	add, err := json.Marshal(extra)
	if err != nil {
		return base
	}
	if len(base) < 2 || string(base) == "{}" {
		return add
	}
	out := make([]byte, 0, len(base)+len(add))
	out = append(out, base[:len(base)-1]...)
	out = append(out, ',')
	return append(out, add[1:]...)
}
