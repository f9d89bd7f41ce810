// Package jsonrpc is the JSON-RPC 2.0 layer shared by glmcp's two MCP route
// groups (CE /api/v4/mcp and EE /api/v4/orbit/mcp) and the renderer of the
// refusals of the middleware in front of them (handlers.RenderRefusals).
// No other package writes a JSON-RPC envelope, and the middleware does not
// import it.
//
// It owns the wire envelope and nothing above it:
//
//   - [Decoder]: strict decoding of one request or notification body
//     (case-sensitive member names, no duplicates, no batches, no responses,
//     string or integer ids echoed byte for byte), interning the method
//     names the server's method table lists;
//   - the error codes ([CodeParseError] … [CodeRateLimited]), the [Error]
//     type and its constructors;
//   - the status table (codes.go): every error the server sends, with its
//     HTTP status in each [Era] — in the Legacy era an error about a request
//     the server read is sent with 200, refusals of what is not a valid
//     request keep their 4xx in both;
//   - [EncodeResult], [EncodeError], [EncodeNotification]: response envelopes,
//     without HTML escaping;
//   - [WriteResult], [WriteError] for application/json answers and [SSE] for
//     text/event-stream answers.
//
// It knows nothing about MCP methods, users or storage, and of the eras
// only which status column to use: the dispatcher in handlers/mcp builds on
// it. It imports only the standard library (no gin: the writers take an
// [net/http.ResponseWriter], which a gin context provides).
//
// See doc/endpoint.md ("Both eras", "Legacy"), doc/errors.md ("JSON-RPC
// errors") and https://www.jsonrpc.org/specification.
package jsonrpc
