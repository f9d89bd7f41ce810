package jsonrpc

import (
	"fmt"
	"net/http"
	"strconv"
)

// Error is a JSON-RPC error object. It marshals as
// {"code":…,"message":…,"data":…} with data omitted when nil, and carries
// what its HTTP response needs: its status in each era (from the status
// table, see [Error.Status]) and any header the status calls for. Build
// one with the constructors below; a literal Error{Code, Message} gets
// the table's plain status for its code.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`

	variant variant
	// retryAfter is the Retry-After of the response, in seconds (0: none).
	retryAfter int64
}

// Error implements the error interface, for logs.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Status is the HTTP status of a response carrying e in era.
func (e *Error) Status(era Era) int { return status(e.Code, e.variant, era) }

// Class names e, sent in era, for the access log and the metrics:
// "parse_error", "invalid_request", "method_not_found", "invalid_params",
// "internal" ("store_unavailable" when sent with 503), "header_mismatch",
// "missing_capability", "unsupported_version", or "rpc_<code>" for any
// other code (glmcp's own). Whoever writes e records it with the code.
func (e *Error) Class(era Era) string { return class(e.Code, e.Status(era)) }

// setHeaders sets the response headers e calls for: Retry-After, Allow on
// a 405, Connection: close when the body could not be read in time.
func (e *Error) setHeaders(h http.Header) {
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(e.retryAfter, 10))
	}
	switch e.variant {
	case notPOST:
		h.Set("Allow", http.MethodPost)
	case tooSlow:
		h.Set("Connection", "close")
	}
}

// NewError returns an Error with the given code, message and optional
// data, sent with the table's plain status for the code.
func NewError(code int, msg string, data any) *Error {
	return &Error{Code: code, Message: msg, Data: data}
}

// InvalidParams returns a [CodeInvalidParams] error whose message is
// "Invalid params: " + fmt.Sprintf(format, args...).
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// InvalidRequest returns a [CodeInvalidRequest] error whose message is
// fmt.Sprintf(format, args...), verbatim.
func InvalidRequest(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

// MethodNotFound returns the [CodeMethodNotFound] error for method:
// "Method not found: <method>" and data {"method": method} (cut short).
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found: " + truncateString(method, 100),
		Data: map[string]string{"method": truncateString(method, 200)}}
}

// Internal returns the [CodeInternalError] error with the fixed message
// "Internal error". It never carries details: whatever went wrong is logged
// by the caller, not sent to the client (the encoder writes every -32603
// but a [StoreUnavailable] this way).
func Internal() *Error {
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}

// retryAfterSeconds is the Retry-After of the 503s: a store outage, or a
// server over its capacity or shutting down.
const retryAfterSeconds = 5

// StoreUnavailable returns the error of a request that could not be served
// because the data store cannot be reached: code -32603, sent with HTTP 503
// and Retry-After. Like [Internal] it carries no details.
func StoreUnavailable() *Error {
	return &Error{Code: CodeInternalError, variant: unavailable, retryAfter: retryAfterSeconds,
		Message: "Store unavailable: the database cannot be reached right now; retry later",
		Data:    map[string]int{"retryAfterSeconds": retryAfterSeconds}}
}

// Unavailable returns an error with code and msg sent with HTTP 503 and
// Retry-After: the server cannot take the request now (over an
// instance-wide cap, or shutting down).
func Unavailable(code int, msg string) *Error {
	return &Error{Code: code, Message: msg, variant: unavailable, retryAfter: retryAfterSeconds}
}

// RateLimited returns the [CodeRateLimited] error of a 429 with
// Retry-After: retryAfter whole seconds (at least 1).
func RateLimited(msg string, retryAfter int64, data any) *Error {
	return &Error{Code: CodeRateLimited, Message: msg, Data: data, retryAfter: max(1, retryAfter)}
}

// BodyTooLarge returns the 413 error of a body over limit bytes.
func BodyTooLarge(limit int64) *Error {
	return &Error{Code: CodeInvalidRequest, variant: tooLarge,
		Message: fmt.Sprintf("Request body too large: the limit is %d bytes", limit)}
}

// BodyTimeout returns the 408 error of a body that did not arrive in time;
// the connection is closed after it.
func BodyTimeout() *Error {
	return &Error{Code: CodeInvalidRequest, variant: tooSlow,
		Message: "Request timeout: the request body did not arrive in time"}
}

// MethodNotAllowed returns the 405 error (with Allow: POST) of an HTTP
// method other than POST.
func MethodNotAllowed() *Error {
	return &Error{Code: CodeInvalidRequest, variant: notPOST,
		Message: "Method not allowed: the MCP endpoint accepts POST only"}
}

// Forbidden returns the 403 error of a request whose Origin or Host is not
// allowed.
func Forbidden(msg string) *Error {
	return &Error{Code: CodeInvalidRequest, variant: forbidden, Message: msg}
}

// parseError is the answer to a body that is not JSON.
func parseError() *Error {
	return &Error{Code: CodeParseError, Message: "Parse error"}
}

// forWire is e as it may be sent: a -32603 other than [StoreUnavailable]
// becomes [Internal], so no detail of a server fault leaves the server.
func (e *Error) forWire() *Error {
	if e == nil || (e.Code == CodeInternalError && e.variant != unavailable) {
		return Internal()
	}
	return e
}
