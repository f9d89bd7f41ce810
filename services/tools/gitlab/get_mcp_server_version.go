package gitlab

import (
	"context"
	"encoding/json"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// getMCPServerVersion is the meta tool that reports the server's version,
// like GitLab's get_mcp_server_version. It needs only the version.
func getMCPServerVersion(g *gitlab) tools.Definition {
	version := g.version
	return tools.Definition{
		Name:         "get_mcp_server_version",
		Title:        "Get MCP server version",
		Description:  "Get the current version of the GitLab MCP server.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		OutputSchema: tools.OutputSchemaOf[ServerVersion](),
		Annotations:  models.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false)},
		Toolset:      models.ToolsetMeta,
		Edition:      models.EditionCE,
		Source:       "app/services/mcp/tools/get_server_version_service.rb",
		Run: func(_ context.Context, call *tools.Call) (*tools.Result, error) {
			out := version
			out.Edition = string(call.Edition)
			return &tools.Result{Text: out.Version, Structured: out}, nil
		},
	}
}
