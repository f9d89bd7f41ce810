// Package mcp serves the MCP endpoint of one route group over both protocol
// eras: Legacy (2025-03-26 … 2025-11-25, initialize handshake, no sessions)
// and Modern (2026-07-28, stateless, per-request _meta). The era is a
// property of each request (DESIGN.md §2.2).
//
// It knows HTTP and JSON-RPC, and talks to services through the small
// interfaces in server.go. It never imports gorm or the store.
package mcp
