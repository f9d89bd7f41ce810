// Package mcp serves the MCP endpoint of one route group over both protocol
// eras: Legacy (2025-03-26 … 2025-11-25, initialize handshake, no sessions)
// and Modern (2026-07-28, stateless, per-request _meta). The era is a
// property of each request (doc/endpoint.md, "Era selection").
//
// A request goes through three places: Server.Handle (server.go) reads and
// decodes it and decodes its params once into the type of its row in the
// method table (methods.go), which says the eras, capability and
// streaming of every method; Server.dispatch applies the Modern checks
// (meta.go) and serves it from the row; Server.answer, the one writer,
// renders the (result, error) the method returned, with the HTTP status the
// status table of handlers/jsonrpc gives it in the request's era.
//
// It knows HTTP and JSON-RPC, and talks to services through the small
// interfaces in server.go. It never imports gorm or the store.
package mcp
