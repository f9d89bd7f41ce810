package sanitize

import (
	"bytes"
	"context"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/services/tools"
)

// The result _meta keys of the sanitiser (doc/security.md, "Sanitised
// text"): reverse-DNS prefixed, as MCP's _meta rules ask of keys that
// are not its own (handlers/mcp adds them to the result's _meta).
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

// Link is the sanitize link of the tools/call chain (a Wrappers link,
// doc/security.md "Sanitised text"): the handler's result comes back with
// its user-written text cleaned and what was removed or flagged in its
// Meta. A client's tools/call and a resources/read reading through a tool
// alike pass it. A result asking for input is glmcp's own and passes as
// it is, as does a refusal.
func Link() tools.Link {
	return tools.Link{Name: "sanitize", Run: func(ctx context.Context, inv *tools.Invocation) (*tools.Result, error) {
		res, err := inv.Next(ctx)
		if err != nil || res == nil || len(res.InputRequests) > 0 || res.RequestState != "" {
			return res, err
		}
		out, meta := Result(inv.Entry.Tool.Name, res)
		if meta != nil {
			// out is a copy here; its Meta map may still be the tool's.
			for k, v := range out.Meta {
				if _, ok := meta[k]; !ok {
					meta[k] = v
				}
			}
			out.Meta = meta
		}
		return out, nil
	}}
}

// Result returns tool's result with its user-written text cleaned
// (structured content, text and text blocks alike, so they stay
// consistent; a copy when anything changes: in is never modified, a tool
// may share it) and repository content as it is, and the _meta entries
// saying what it removed and flagged (nil: nothing).
func Result(tool string, in *tools.Result) (*tools.Result, map[string]any) {
	if quiet(in) {
		return in, nil // the common case: no copy, no allocation
	}
	keep, whole := Code(tool)
	cp := *in
	res := &cp
	if len(in.Content) > 0 {
		res.Content = append([]tools.Content(nil), in.Content...)
	}
	var removed, flagged Counts
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
		after, r, f := JSON(before, keep)
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
		var r, f Counts
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

// quiet reports whether in holds nothing to remove or flag, as the fast
// byte searches of suspicious tell: a JSON result whose text is its
// structured content (what glmcp's tools return), without text blocks.
func quiet(in *tools.Result) bool {
	sc, ok := in.Structured.(tools.CompactJSON)
	return ok && len(in.Content) == 0 && in.Text == string(sc) && !suspicious(sc)
}

// cleanText cleans a text: a JSON document string by string, code only
// counted, anything else as prose.
func cleanText(s string, keep func(string) bool, whole bool) (string, Counts, Counts) {
	if s == "" {
		return s, Counts{}, Counts{}
	}
	if t := bytes.TrimSpace([]byte(s)); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		out, r, f := JSON([]byte(s), keep)
		return string(out), r, f
	}
	if whole {
		return s, Counts{}, Scan([]byte(s))
	}
	out, r := String(s)
	return out, r, Counts{}
}
