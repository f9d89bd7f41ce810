package tools

import (
	"encoding/json"
	"sort"
)

// MirroredParam is a tool argument mirrored into an Mcp-Param-{Header}
// HTTP header (the x-mcp-header schema extension, 2026-07-28).
type MirroredParam struct {
	// Path is the chain of properties keys leading to the argument.
	Path   []string
	Header string
}

// MirroredParams returns the tool's x-mcp-header annotated arguments,
// computed once per snapshot entry.
func (e *Entry) MirroredParams() []MirroredParam {
	e.mirroredOnce.Do(func() {
		var root map[string]any
		if json.Unmarshal(e.Tool.InputSchema, &root) == nil {
			e.mirrored = collectMirrored(root, nil, nil)
		}
	})
	return e.mirrored
}

func collectMirrored(schema map[string]any, path []string, out []MirroredParam) []MirroredParam {
	props, _ := schema["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sub, ok := props[k].(map[string]any)
		if !ok {
			continue
		}
		p := append(append([]string(nil), path...), k)
		if h, ok := sub["x-mcp-header"].(string); ok && h != "" {
			out = append(out, MirroredParam{Path: p, Header: h})
		}
		out = collectMirrored(sub, p, out)
	}
	return out
}
