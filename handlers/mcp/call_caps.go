package mcp

import (
	"bytes"
	"strings"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// requireCapabilities refuses a Modern call of a tool whose
// RequiredClientCapabilities the request's clientCapabilities do not all
// declare (as JSON objects): -32021 (HTTP 400) with
// data.requiredCapabilities naming every capability the tool needs, each
// as an empty ClientCapabilities entry ({"sampling": {}}).
func requireCapabilities(x *exchange, entry *tools.Entry) *jsonrpc.Error {
	if entry.Def == nil || len(entry.Def.RequiredClientCapabilities) == 0 {
		return nil
	}
	var missing []string
	for _, c := range entry.Def.RequiredClientCapabilities {
		v := bytes.TrimSpace(x.meta.Capabilities[c])
		if len(v) == 0 || v[0] != '{' {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	required := make(map[string]struct{}, len(entry.Def.RequiredClientCapabilities))
	for _, c := range entry.Def.RequiredClientCapabilities {
		required[c] = struct{}{}
	}
	return jsonrpc.NewError(jsonrpc.CodeMissingRequiredClientCapability,
		"Missing required client capability: the tool "+entry.Tool.Name+" needs "+strings.Join(missing, ", ")+
			", which the request's clientCapabilities do not declare",
		map[string]any{"requiredCapabilities": required})
}
