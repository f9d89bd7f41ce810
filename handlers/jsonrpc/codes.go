package jsonrpc

import "net/http"

// Version is the only "jsonrpc" member value accepted and the one written.
const Version = "2.0"

// Error codes. The first five are JSON-RPC 2.0's
// (https://www.jsonrpc.org/specification#error_object); the -3202x codes are
// the MCP 2026-07-28 revision's header, capability and version errors.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
)

// HTTPStatus maps an error code to the HTTP status of the response that
// carries it (DESIGN.md §2.1): 400 for parse, invalid-request,
// invalid-params, header, capability and version errors; 404 for an unknown
// method; 500 for internal errors and any code not in the table.
func HTTPStatus(code int) int {
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeInvalidParams,
		CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case CodeMethodNotFound:
		return http.StatusNotFound
	default:
		return http.StatusInternalServerError
	}
}
