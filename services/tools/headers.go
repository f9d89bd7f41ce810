package tools

import (
	"encoding/json"
	"maps"
	"slices"
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

// Argument returns the value at path (property names from the top) in r's
// arguments, as the chain parsed them once (objects map[string]any,
// numbers json.Number), and whether it is there: the transport's check of
// mirrored Mcp-Param headers reads the arguments through it rather than
// parsing them again.
func (r *CallRequest) Argument(path []string) (any, bool) { return r.args().at(path) }

// Argument returns the value at path in c's arguments, from the parse the
// chain made once (see CallRequest.Argument): a Target's resolver reading
// one argument reads it here rather than decoding the arguments again.
func (c *Call) Argument(path []string) (any, bool) { return c.args().at(path) }

func (p *parsedArgs) at(path []string) (any, bool) {
	v := p.value
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// ArgumentNames returns the names of c's top-level arguments, sorted, from
// the chain's one parse; ok is false when the arguments are not an object.
// A tool whose valid arguments depend on one of them (a method argument)
// checks the others by name here rather than decoding the arguments again.
func (c *Call) ArgumentNames() (names []string, ok bool) { return c.args().names() }

// ArgumentNames is Call.ArgumentNames for the request: what the links
// before the arguments link (the audit link) read of it.
func (r *CallRequest) ArgumentNames() (names []string, ok bool) { return r.args().names() }

func (p *parsedArgs) names() ([]string, bool) {
	m, ok := p.value.(map[string]any)
	if !ok {
		return nil, false
	}
	return slices.Sorted(maps.Keys(m)), true
}
