package jsonrpc

import (
	"fmt"
	"net/http"
	"strconv"
)

// Error is a JSON-RPC error object. Method handlers return one to choose the
// code the client sees; it marshals as {"code":…,"message":…,"data":…} with
// data omitted when nil.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
	// status overrides the code's HTTP status (see Status).
	status int
}

// RetryAfterSeconds is the Retry-After of an [Unavailable] answer.
const RetryAfterSeconds = 5

// Unavailable returns the error of a request that could not be served
// because the data store cannot be reached: code -32603, sent with HTTP 503
// and Retry-After (DESIGN.md §2.1). Like [Internal] it carries no details.
func Unavailable() *Error {
	return &Error{Code: CodeInternalError, status: http.StatusServiceUnavailable,
		Message: "Store unavailable: the database cannot be reached right now; retry later",
		Data:    map[string]int{"retryAfterSeconds": RetryAfterSeconds}}
}

// Status is the HTTP status of a response carrying e: [HTTPStatus] of its
// code, or 503 for [Unavailable].
func (e *Error) Status() int {
	if e.status != 0 {
		return e.status
	}
	return HTTPStatus(e.Code)
}

// SetHeaders sets the response headers e calls for (Retry-After on 503).
func (e *Error) SetHeaders(h http.Header) {
	if e.Status() == http.StatusServiceUnavailable {
		h.Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
}

// Error implements the error interface, for logs.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// NewError returns an Error with the given code, message and optional data.
func NewError(code int, msg string, data any) *Error {
	return &Error{Code: code, Message: msg, Data: data}
}

// InvalidParams returns a [CodeInvalidParams] error whose message is
// fmt.Sprintf(format, args...), verbatim.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// InvalidRequest returns a [CodeInvalidRequest] error whose message is
// fmt.Sprintf(format, args...), verbatim.
func InvalidRequest(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

// MethodNotFound returns the [CodeMethodNotFound] error for method, with
// message "Method not found" and data {"method": method}.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found", Data: map[string]string{"method": method}}
}

// Internal returns the [CodeInternalError] error with the fixed message
// "Internal error". It never carries details: whatever went wrong is logged
// by the caller, not sent to the client.
func Internal() *Error {
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}

// parseError is the answer to a body that is not JSON.
func parseError() *Error {
	return &Error{Code: CodeParseError, Message: "Parse error"}
}
