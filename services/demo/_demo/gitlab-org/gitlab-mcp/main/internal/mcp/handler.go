// Package mcp serves the Model Context Protocol over HTTP.
package mcp

import (
	"encoding/json"
	"net/http"

	"gitlab.com/gitlab-org/gitlab-mcp/internal/catalog"
)

// Handler answers JSON-RPC requests on the MCP endpoint.
type Handler struct {
	catalog *catalog.Catalog
}

// NewHandler returns a Handler serving the tools in c.
func NewHandler(c *catalog.Catalog) *Handler {
	return &Handler{catalog: c}
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// ServeHTTP decodes one request and dispatches it by method.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, nil, codeParseError, "Parse error")
		return
	}
	switch req.Method {
	case "initialize":
		h.initialize(w, req)
	case "tools/list":
		writeResult(w, req.ID, map[string]any{"tools": h.catalog.List()})
	case "tools/call":
		h.callTool(w, r, req)
	default:
		writeError(w, req.ID, codeMethodNotFound, "Method not found")
	}
}
