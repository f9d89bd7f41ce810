package mcp

import "net/http"

// supportedVersions lists the protocol revisions this server speaks, newest
// first. Clients of the 2025 revisions keep using initialize.
var supportedVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}

// discoverTTLMillis tells clients how long they may cache the answer.
const discoverTTLMillis = 60_000

// discover answers server/discover (2026-07-28): what the server supports,
// without a handshake and without a session.
func (h *Handler) discover(w http.ResponseWriter, req request) {
	writeResult(w, req.ID, map[string]any{
		"supportedVersions": supportedVersions,
		"capabilities": map[string]any{
			"tools": map[string]any{"listChanged": true},
		},
		"serverInfo": map[string]any{"name": "GitLab MCP Server", "version": Version},
		"ttlMs":      discoverTTLMillis,
		"cacheScope": "public",
	})
}
