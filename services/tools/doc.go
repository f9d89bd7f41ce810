// Package tools runs MCP tools: it holds the code-side definitions (schema,
// annotations, toolset, executor), syncs them into the tool store, keeps a
// cached snapshot of the enabled catalog, validates arguments against each
// tool's JSON Schema (2020-12) and executes calls.
//
// Tool failures (validation, not found, permission, business rules) are
// results with IsError set, never Go errors; a Go error from Call means the
// server itself failed. It knows neither HTTP nor JSON-RPC nor gorm.
package tools
