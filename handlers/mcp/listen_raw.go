package mcp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// A listen stream is idle almost all of its life, and an instance holds
// thousands of them (GLMCP_MAX_STREAMS, 10,000 by default). Served through
// net/http, each idle stream keeps the connection's serving goroutine parked
// in the handler (a deep stack: gin and the middleware chain), net/http's
// per-connection 4 KiB read and write buffers, the request, its context and
// the gin context, net/http's background reader goroutine, and a ticker
// for keep-alives.
//
// So once the response headers have gone out, an HTTP/1.x listen stream
// takes its connection over (hijacks it) and the handler returns, freeing
// all of that. The stream goes on writing the chunked body itself, and one
// small goroutine per stream does everything else: it sits in a one-byte
// Read on the connection, which returns when the client closes the stream
// (or sends anything, which ends it too), when the read deadline set for
// the next keep-alive passes, or when the hub wakes it by moving that
// deadline into the past (subscriptions.Hub.SubscribeFunc). The keep-alive
// timer is the connection's own deadline timer: nothing is allocated for
// it. Writes carry the same write deadline as before, so a client that
// stops reading is still cut off.
//
// HTTP/2 connections (and writers that cannot be hijacked) keep the
// net/http path in listen.

// rawStream is a listen stream on a hijacked HTTP/1.x connection.
type rawStream struct {
	*listener
	conn    atomic.Value // net.Conn, once hijacked; read by wake
	c       net.Conn     // the same, for the stream's own goroutine
	chunked bool         // HTTP/1.1: the body is chunked; HTTP/1.0: it ends with the connection
	timeout time.Duration
	one     [1]byte
}

// aLongTimeAgo is a deadline in the past: setting it wakes a blocked Read.
var aLongTimeAgo = time.Unix(1, 0)

// canHijack reports whether the listen stream of x can run on its
// connection: an HTTP/1.x request whose writer (under gin's) can be
// hijacked.
func canHijack(x *exchange) bool {
	if x.c.Request.ProtoMajor != 1 {
		return false
	}
	var w http.ResponseWriter = x.c.Writer
	for range 32 { // a bound, in case Unwrap cycles
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	_, ok := w.(http.Hijacker)
	return ok
}

// wake interrupts the stream's Read so that it looks at what is pending.
// The hub calls it with its lock held: it only moves a deadline.
func (st *rawStream) wake() {
	if c, ok := st.conn.Load().(net.Conn); ok {
		_ = c.SetReadDeadline(aLongTimeAgo)
	}
}

// serveRaw flushes the stream's headers, takes the connection of x over,
// writes the acknowledgement and leaves the stream to its own goroutine.
// Whatever happens, the subscription is closed when the stream ends. It
// returns errStreamDetached once the connection is taken (the one writer
// then has nothing to write), or what prevented the stream from starting.
func (s *Server) serveRaw(x *exchange, st *rawStream, ack []byte) error {
	// The connection closes when the stream ends: say so in the head, so
	// that a proxy keeping its connections to glmcp alive does not put
	// this one back in its pool after the last chunk and send the next
	// request into the close.
	x.c.Writer.Header().Set("Connection", "close")
	if _, err := jsonrpc.NewSSE(x.c.Writer); err != nil {
		st.close()
		return fmt.Errorf("open listen stream: %w", err)
	}
	conn, _, err := x.c.Writer.Hijack()
	if err != nil {
		// canHijack said yes; should it fail anyway, the stream ends
		// after its headers and the client reconnects.
		st.close()
		s.cfg.Logger.ErrorContext(x.ctx, "hijack listen stream", "error", err, "request_id", x.fields.RequestID)
		return errStreamDetached
	}
	// net/http's buffered reader holds nothing but what a client sent
	// after its request, which a listen stream ignores; dropping it and
	// the writer frees both buffers.
	st.c = conn
	st.chunked = x.c.Request.ProtoAtLeast(1, 1)
	st.timeout = x.streamTimeout
	st.conn.Store(conn)
	if st.send(ack) != nil {
		st.finish()
		return errStreamDetached
	}
	go st.run()
	return errStreamDetached
}

// errStreamDetached is what listen returns for a stream that runs (or
// ran) on its hijacked connection: nothing is left for the one writer to
// write, as for a stream that closed.
var errStreamDetached = fmt.Errorf("%w: the listen stream runs on its own connection", errStreamClosed)

// run serves the stream until the client goes, a write fails, or the hub
// ends it (shutdown: the final result is sent first).
func (st *rawStream) run() {
	defer st.finish()
	keepAlive := st.srv.cfg.KeepAlive
	next := time.Now().Add(keepAlive)
	for {
		// The deadline is set before looking at what is pending: a wake
		// after the look moves it into the past again, so none is lost.
		_ = st.c.SetReadDeadline(next)
		ended := st.sub.Ended() // before Take: what was published before the end is told
		if st.tell(st) != nil {
			return
		}
		if ended {
			st.endRaw()
			return
		}
		_, err := st.c.Read(st.one[:])
		switch {
		case err == nil: // the client sent something: not part of a listen stream
			return
		case !errors.Is(err, os.ErrDeadlineExceeded): // closed, reset
			return
		}
		if now := time.Now(); !now.Before(next) {
			if st.comment("keep-alive") != nil {
				return
			}
			next = now.Add(keepAlive)
		}
	}
}

// send writes message as one event.
func (st *rawStream) send(message []byte) error {
	return st.write(jsonrpc.AppendEvent(make([]byte, 0, len(message)+24), message), false)
}

func (st *rawStream) comment(text string) error {
	return st.write(jsonrpc.AppendComment(make([]byte, 0, len(text)+4), text), false)
}

// endRaw sends the final result and ends the body.
func (st *rawStream) endRaw() {
	var id jsonrpc.ID
	if id.UnmarshalJSON(st.subID) != nil {
		return
	}
	res, err := st.srv.listenEnd(st.subID)
	if err != nil {
		return
	}
	b, err := jsonrpc.EncodeResult(id, res)
	if err != nil {
		return
	}
	_ = st.write(jsonrpc.AppendEvent(make([]byte, 0, len(b)+24), b), true)
}

// write writes one piece of the body (a chunk of its own on HTTP/1.1,
// followed by the last chunk when last is set) under the write deadline.
func (st *rawStream) write(p []byte, last bool) error {
	b := p
	if st.chunked {
		b = make([]byte, 0, len(p)+24)
		b = strconv.AppendInt(b, int64(len(p)), 16)
		b = append(b, "\r\n"...)
		b = append(b, p...)
		b = append(b, "\r\n"...)
		if last {
			b = append(b, "0\r\n\r\n"...)
		}
	}
	_ = st.c.SetWriteDeadline(time.Now().Add(st.timeout))
	_, err := st.c.Write(b)
	return err
}

// finish closes the connection and frees the slot.
func (st *rawStream) finish() {
	_ = st.c.Close()
	st.close()
}
