package mcp

import "encoding/json"

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
