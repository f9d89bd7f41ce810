package jsonrpc

import (
	"net/http"
	"strconv"
)

// WriteResult writes the success envelope for id with status 200 and
// Content-Type application/json. If result cannot be encoded it writes
// [Internal] instead (HTTP 500); callers that must log that failure encode
// with [EncodeResult] and write with [WriteJSON].
func WriteResult(w http.ResponseWriter, id ID, result any) {
	b, err := EncodeResult(id, result)
	if err != nil {
		WriteError(w, id, Internal())
		return
	}
	WriteJSON(w, http.StatusOK, b)
}

// WriteError writes the error envelope for id (null when zero) with the
// status [Error.Status] gives e and Content-Type application/json. A nil e
// is written as [Internal]. If e.Data cannot be encoded the error is written
// without data, keeping its code and message.
func WriteError(w http.ResponseWriter, id ID, e *Error) {
	if e == nil {
		e = Internal()
	}
	b, err := EncodeError(id, e)
	if err != nil {
		b, _ = EncodeError(id, &Error{Code: e.Code, Message: e.Message})
	}
	e.SetHeaders(w.Header())
	WriteJSON(w, e.Status(), b)
}

// WriteJSON writes an already encoded JSON body with the given status,
// Content-Type application/json and Content-Length. A write error means the
// client went away; there is nothing left to tell it, so it is dropped.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
