// Package jsonrpc is the JSON-RPC 2.0 layer shared by glmcp's two MCP route
// groups (CE /api/v4/mcp and EE /api/v4/orbit/mcp).
//
// It owns the wire envelope and nothing above it:
//
//   - [Decode]: strict decoding of one request or notification body
//     (case-sensitive member names, no duplicates, no batches, no responses,
//     string or integer ids echoed byte for byte);
//   - the error codes ([CodeParseError] … [CodeUnsupportedProtocolVersion]),
//     the [Error] type and its constructors;
//   - [HTTPStatus], the single table from error code to HTTP status;
//   - [EncodeResult], [EncodeError], [EncodeNotification]: response envelopes,
//     without HTML escaping;
//   - [WriteResult], [WriteError] for application/json answers and [SSE] for
//     text/event-stream answers.
//
// It knows nothing about MCP methods, eras, users or storage: the dispatcher
// in handlers/mcp builds on it. It imports only the standard library (no gin:
// the writers take an [net/http.ResponseWriter], which a gin context provides).
//
// See DESIGN.md §2.1 and https://www.jsonrpc.org/specification.
package jsonrpc
