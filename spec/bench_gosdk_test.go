package spec

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"gitlab.com/glmcp/glmcp/app"
)

// glmcp against the official go-sdk (v1.8.0) server on the same request:
// tools/call of a tool answering a fixed JSON document like
// get_mcp_server_version, in both eras, from the same client. The go-sdk
// side is its StreamableHTTPHandler in stateless mode with JSON responses
// (no sessions, as glmcp) and no authentication; the glmcp side is the
// whole server, so it also authenticates the token against the store,
// checks the origin, logs and counts metrics. Results are in
// doc/performance.md ("Comparison with the go-sdk server").
//
//	go test ./spec/ -run '^$' -bench 'GoSDKComparison' -benchtime 3s

// benchGoSDKServer serves the go-sdk's stateless handler with one tool
// answering what glmcp's get_mcp_server_version answers.
func benchGoSDKServer(b *testing.B) string {
	b.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "GitLab MCP Server", Version: app.Version}, nil)
	version := map[string]any{"version": app.Version, "edition": "ce"}
	server.AddTool(&mcp.Tool{
		Name:        "get_mcp_server_version",
		Title:       "Get MCP server version",
		Description: "Get the current version of the GitLab MCP server.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: app.Version}}, StructuredContent: version}, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewServer(handler)
	b.Cleanup(ts.Close)
	return ts.URL
}

// BenchmarkGoSDKComparison: tools/call get_mcp_server_version on the
// go-sdk server and on glmcp (SQLite store), Modern and Legacy.
func BenchmarkGoSDKComparison(b *testing.B) {
	h := startServer(b, withDSN(""))
	sdkURL := benchGoSDKServer(b)
	for _, era := range eras {
		// One request shape for both servers: glmcp's, built like every
		// spec request (the go-sdk ignores the Authorization header).
		body, hd := h.parts(b, call{Era: era, User: "alice", Method: "tools/call", Params: map[string]any{
			"name": "get_mcp_server_version", "arguments": map[string]any{}}})
		b.Run(era+"/go-sdk", func(b *testing.B) {
			benchRun(b, newBenchRequest(sdkURL, body, hd, `"structuredContent":{"edition":"ce","version":"`+app.Version+`"}`))
		})
		b.Run(era+"/glmcp", func(b *testing.B) {
			benchRun(b, newBenchRequest(h.CE, body, hd, `"structuredContent":{"version":"`+app.Version+`","edition":"ce"}`))
		})
	}
}
