package jsonrpc

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// ErrFlushNotSupported is returned by [NewSSE] when the response writer (or
// anything it unwraps to) cannot flush, so events could not be streamed.
var ErrFlushNotSupported = errors.New("jsonrpc: response writer cannot flush")

// SSE writes a text/event-stream response. It is safe for concurrent use:
// each event is written and flushed whole, under a mutex. After the first
// write or flush error every later call returns that error.
type SSE struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// NewSSE starts an event stream on w: it sets Content-Type
// text/event-stream, Cache-Control no-cache and X-Accel-Buffering no, writes
// status 200 and flushes, so the client sees the headers at once.
//
// Flushing goes through [http.ResponseController], so wrappers that expose
// Unwrap work. When w cannot flush, NewSSE returns [ErrFlushNotSupported]
// before touching the response, and the caller can still answer in JSON.
func NewSSE(w http.ResponseWriter) (*SSE, error) {
	if !canFlush(w) {
		return nil, ErrFlushNotSupported
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if err := rc.Flush(); err != nil {
		return nil, fmt.Errorf("flush event stream headers: %w", err)
	}
	return &SSE{w: w, rc: rc}, nil
}

// Send writes message as one "message" event and flushes (see
// [AppendEvent]).
func (s *SSE) Send(message []byte) error {
	return s.write(AppendEvent(make([]byte, 0, len(message)+24), message))
}

// Comment writes the keep-alive comment ": <text>\n\n" and flushes (see
// [AppendComment]).
func (s *SSE) Comment(text string) error {
	return s.write(AppendComment(make([]byte, 0, len(text)+4), text))
}

// AppendEvent appends message as one "message" event:
// "event: message\ndata: <message>\n\n". message is an encoded JSON-RPC
// envelope (see [EncodeResult], [EncodeNotification]). Trailing line breaks
// are dropped; should it contain others, each line gets its own "data: "
// field, which SSE clients join back with "\n".
func AppendEvent(b, message []byte) []byte {
	b = append(b, "event: message\n"...)
	b = appendLines(b, "data: ", message)
	return append(b, '\n')
}

// AppendComment appends the comment ": <text>\n\n". Line breaks in text
// start new comment lines.
func AppendComment(b []byte, text string) []byte {
	b = appendLines(b, ": ", []byte(text))
	return append(b, '\n')
}

func (s *SSE) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	_, err := s.w.Write(b)
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.err = fmt.Errorf("write event stream: %w", err)
	}
	return s.err
}

// appendLines appends prefix+line+"\n" for each line of text, splitting on
// "\r\n", "\n" and "\r" as the SSE grammar does. Trailing line breaks are
// dropped; empty text is one empty line.
func appendLines(b []byte, prefix string, text []byte) []byte {
	text = bytes.TrimRight(text, "\r\n")
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r', '\n':
			b = append(b, prefix...)
			b = append(b, text[start:i]...)
			b = append(b, '\n')
			if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	b = append(b, prefix...)
	b = append(b, text[start:]...)
	return append(b, '\n')
}

// canFlush reports whether http.ResponseController could flush w: w or a
// writer it unwraps to implements FlushError or http.Flusher.
func canFlush(w http.ResponseWriter) bool {
	for range 32 { // a bound, in case Unwrap cycles
		switch t := w.(type) {
		case interface{ FlushError() error }, http.Flusher:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
	return false
}
