package jsonrpc

import (
	"net/http"
	"strconv"
	"sync"
)

// WriteResult writes the success envelope for id with status 200 and
// Content-Type application/json. If result cannot be encoded it writes
// [Internal] instead (HTTP 500) and returns the encoding error for the
// caller to log.
//
// The envelope is built in a buffer reused across requests: a tools/list
// answer is tens of kilobytes, and allocating (and zeroing, and collecting)
// one per request was most of the bytes the server allocated.
func WriteResult(w http.ResponseWriter, id ID, result any) error {
	bp := getBuffer()
	defer putBuffer(bp)
	b, err := appendResult((*bp)[:0], id, result)
	*bp = b
	if err != nil {
		WriteError(w, EraUnknown, id, Internal())
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

// maxPooledBuffer bounds the buffers kept for reuse: a rare huge answer
// does not pin its buffer for good.
const maxPooledBuffer = 1 << 20

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

// putBuffer returns a buffer whose contents nobody holds any more: the
// response writer copies what it is given before Write returns.
func putBuffer(bp *[]byte) {
	if cap(*bp) > maxPooledBuffer {
		return
	}
	*bp = (*bp)[:0]
	buffers.Put(bp)
}

// WriteError writes the error envelope for id (no id member when zero)
// with the status the table gives e in era, the headers e calls for and
// Content-Type application/json. A nil e, and any -32603 but a store
// outage, is written as [Internal]. If e.Data cannot be encoded the error
// is written without data, keeping its code and message.
//
// It is the one way a JSON-RPC error reaches an HTTP response: the
// handlers' refusal renderer (handlers.RenderRefusals), answering a request
// refused before it was read, uses it with [EraUnknown], the MCP handler
// with the request's era.
func WriteError(w http.ResponseWriter, era Era, id ID, e *Error) {
	e = e.forWire()
	b, err := EncodeError(id, e)
	if err != nil {
		b, _ = EncodeError(id, &Error{Code: e.Code, Message: e.Message})
	}
	e.setHeaders(w.Header())
	writeJSON(w, e.Status(era), b)
}

// writeJSON writes an encoded JSON body with the given status,
// Content-Type application/json and Content-Length. A write error means
// the client went away; there is nothing left to tell it, so it is dropped.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
