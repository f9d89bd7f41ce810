package jsonrpc

import (
	"net/http"
	"strconv"
)

// Version is the only "jsonrpc" member value accepted and the one written.
const Version = "2.0"

// Error codes. The first five are JSON-RPC 2.0's
// (https://www.jsonrpc.org/specification#error_object); the -3202x codes are
// the MCP 2026-07-28 revision's header, capability and version errors; the
// -310xx codes are glmcp's own, outside the ranges JSON-RPC
// (-32768…-32000) and MCP reserve.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022

	// CodeTooManySubscriptions refuses a subscriptions/listen stream over
	// a cap (per user: 429; per instance, or shutting down: 503).
	CodeTooManySubscriptions = -31001
	// CodeRateLimited refuses a request over a rate limit (429).
	CodeRateLimited = -31029
)

// Era is the protocol era a response is written in. It picks the column of
// the status table; the package knows nothing else about eras.
type Era uint8

const (
	// EraUnknown: the request was refused before it was read as a
	// JSON-RPC request (before its body, or a body that is not a valid
	// request). Such refusals have the same status in both eras.
	EraUnknown Era = iota
	// EraLegacy: 2025-03-26 … 2025-11-25, the initialize era.
	EraLegacy
	// EraModern: 2026-07-28.
	EraModern
)

// variant tells apart errors that share a code but not an HTTP status.
type variant uint8

const (
	plain       variant = iota
	tooLarge            // the body is over the size limit
	tooSlow             // the body did not arrive in time
	notPOST             // an HTTP method other than POST
	forbidden           // Origin or Host not allowed
	unavailable         // cannot serve it now: 503, Retry-After
)

// statusRow is one line of the status table.
type statusRow struct {
	code    int
	variant variant
	// legacy and modern are the HTTP statuses of the error in each era.
	legacy, modern int
}

// statusTable maps every error glmcp sends to its HTTP status, per era
// (doc/errors.md, "JSON-RPC errors"). Refusals of what is not a valid
// JSON-RPC request (parse error, invalid envelope, body size or time, HTTP
// method, origin) and the rate and capacity limits are 4xx/5xx in both
// eras. A JSON-RPC error about a request the server read is 200 in the
// Legacy era, where clients (the TypeScript SDK, mcp-remote) surface the
// code and message only from a 200, and keeps its 4xx in the Modern era.
// Server faults are 5xx in both. A code missing here is answered 500.
var statusTable = []statusRow{
	{CodeParseError, plain, http.StatusBadRequest, http.StatusBadRequest},
	{CodeInvalidRequest, plain, http.StatusBadRequest, http.StatusBadRequest},
	{CodeInvalidRequest, tooLarge, http.StatusRequestEntityTooLarge, http.StatusRequestEntityTooLarge},
	{CodeInvalidRequest, tooSlow, http.StatusRequestTimeout, http.StatusRequestTimeout},
	{CodeInvalidRequest, notPOST, http.StatusMethodNotAllowed, http.StatusMethodNotAllowed},
	{CodeInvalidRequest, forbidden, http.StatusForbidden, http.StatusForbidden},
	{CodeMethodNotFound, plain, http.StatusOK, http.StatusNotFound},
	{CodeInvalidParams, plain, http.StatusOK, http.StatusBadRequest},
	{CodeInternalError, plain, http.StatusInternalServerError, http.StatusInternalServerError},
	{CodeInternalError, unavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable},
	{CodeHeaderMismatch, plain, http.StatusOK, http.StatusBadRequest},
	{CodeMissingRequiredClientCapability, plain, http.StatusOK, http.StatusBadRequest},
	{CodeUnsupportedProtocolVersion, plain, http.StatusOK, http.StatusBadRequest},
	{CodeTooManySubscriptions, plain, http.StatusTooManyRequests, http.StatusTooManyRequests},
	{CodeTooManySubscriptions, unavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable},
	{CodeRateLimited, plain, http.StatusTooManyRequests, http.StatusTooManyRequests},
}

// status is the HTTP status of an error with code and variant in era.
func status(code int, v variant, era Era) int {
	for _, r := range statusTable {
		if r.code == code && r.variant == v {
			if era == EraLegacy {
				return r.legacy
			}
			return r.modern
		}
	}
	return http.StatusInternalServerError
}

// class names a JSON-RPC error code answered with HTTP status (see
// [Error.Class]).
func class(code, status int) string {
	switch code {
	case CodeParseError:
		return "parse_error"
	case CodeInvalidRequest:
		return "invalid_request"
	case CodeMethodNotFound:
		return "method_not_found"
	case CodeInvalidParams:
		return "invalid_params"
	case CodeInternalError:
		if status == http.StatusServiceUnavailable {
			return "store_unavailable"
		}
		return "internal"
	case CodeHeaderMismatch:
		return "header_mismatch"
	case CodeMissingRequiredClientCapability:
		return "missing_capability"
	case CodeUnsupportedProtocolVersion:
		return "unsupported_version"
	}
	return "rpc_" + strconv.Itoa(code)
}
