package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// eventStream is the text/event-stream response of a request: started by
// its method (subscriptions/listen at once, tools/call at its first
// notification), fed notifications, and ended by the one writer
// (Server.answer) with the request's final response. Every write has a
// deadline, so a client that stops reading cannot hold its handler (and
// what it holds) forever. It is safe for concurrent use: a tool may report
// from several goroutines.
type eventStream struct {
	x       *exchange
	timeout time.Duration

	mu  sync.Mutex
	sse *jsonrpc.SSE
	rc  *http.ResponseController
	// dead: a write failed, the stream could not start, or it ended.
	dead bool
}

// events returns the request's event stream, creating it (not started)
// on first use, with the write timeout of the method's row.
func (x *exchange) events() *eventStream {
	if x.stream == nil {
		x.stream = &eventStream{x: x, timeout: x.streamTimeout}
	}
	return x.stream
}

// start turns the response into an event stream, unless it already is. It
// fails when the response writer cannot flush; the response is then
// untouched and the answer goes out as JSON.
func (e *eventStream) start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.startLocked()
}

func (e *eventStream) startLocked() error {
	if e.sse != nil {
		return nil
	}
	sse, err := jsonrpc.NewSSE(e.x.c.Writer)
	if err != nil {
		e.dead = true
		return err
	}
	e.sse, e.rc = sse, http.NewResponseController(e.x.c.Writer)
	return nil
}

// started reports whether the response became an event stream.
func (e *eventStream) started() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sse != nil
}

// notify sends one notification, starting the stream at the first; it
// reports whether it was sent.
func (e *eventStream) notify(method string, params any) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dead || e.x.ctx.Err() != nil || e.startLocked() != nil {
		return false
	}
	b, err := jsonrpc.EncodeNotification(method, params)
	if err == nil {
		err = e.sendLocked(b)
	}
	return err == nil
}

// send writes one encoded message on a started stream.
func (e *eventStream) send(message []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sendLocked(message)
}

func (e *eventStream) sendLocked(message []byte) error {
	if e.dead || e.sse == nil {
		return errStreamClosed
	}
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.timeout)) // unsupported: no deadline
	if err := e.sse.Send(message); err != nil {
		e.dead = true
		return fmt.Errorf("%w: %w", errStreamClosed, err)
	}
	return nil
}

// comment writes an SSE comment (a keep-alive) on a started stream.
func (e *eventStream) comment(text string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dead || e.sse == nil {
		return errStreamClosed
	}
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.timeout))
	if err := e.sse.Comment(text); err != nil {
		e.dead = true
		return fmt.Errorf("%w: %w", errStreamClosed, err)
	}
	return nil
}

// finish sends the final response (result, or e when not nil) and ends
// the stream: nothing follows it. A stream that broke, or whose client
// went away, gets nothing.
func (e *eventStream) finish(result any, rpcErr *jsonrpc.Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dead || e.sse == nil || e.x.ctx.Err() != nil {
		e.dead = true
		return
	}
	var (
		b   []byte
		err error
	)
	if rpcErr != nil {
		b, err = jsonrpc.EncodeError(e.x.req.ID, rpcErr)
	} else {
		b, err = jsonrpc.EncodeResult(e.x.req.ID, result)
	}
	if err == nil {
		_ = e.sendLocked(b)
	}
	e.dead = true
}

// release clears the write deadline: the server has none of its own, and a
// kept-alive connection's next response must not inherit ours.
func (e *eventStream) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rc != nil {
		_ = e.rc.SetWriteDeadline(time.Time{})
	}
}

// errStreamClosed is the error of a write on a stream that never started,
// broke (the client stopped reading or went away) or ended: there is no
// one left to answer.
var errStreamClosed = errors.New("event stream closed")
