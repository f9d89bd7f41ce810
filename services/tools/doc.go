// Package tools is the tool service: the one place that decides which
// tools exist for a caller and runs them. Handlers translate the wire to a
// [ListQuery] or [CallRequest] and back; everything between is here:
//
//   - the GitLab filter headers (tools, toolsets, name prefix), the route
//     group's edition, read-only (read_api) tokens, aliases and unlisted
//     tools ([models.Scope], [Service.List], [Service.Call] and its chain
//     of named links in chain.go, [Service.Watch]);
//   - paging with signed keyset cursors (through services/catalog);
//   - the client capabilities a tool needs ([Declares]) and the sealed
//     requestState of multi round-trip calls;
//   - the catalog: code-side [Definition]s synced into the store, a cached
//     [Snapshot] of the enabled tools, argument validation against each
//     tool's JSON Schema (2020-12).
//
// Tools themselves live in their own packages, one file per tool:
// services/tools/gitlab (GitLab's catalog) and services/tools/conformance
// (the MCP conformance suite's fixtures, registered only by a flag).
//
// Tool failures (validation, not found, permission, business rules) are
// results with IsError set, never Go errors; a Go error from Resolve or Run
// is either
// one of this package's typed refusals ([UnknownToolError],
// [MissingCapabilityError], [ReadOnlyError]), invalid input (wrapping
// models.ErrInvalidInput), or a server failure. It knows neither HTTP nor
// JSON-RPC nor gorm.
package tools
