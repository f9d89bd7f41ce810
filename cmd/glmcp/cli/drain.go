package cli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// drainIdleGrace is how long a kept-alive connection must stay idle,
// once draining began, before it is closed: a client that has just been
// answered sends its next request within moments, and that request is
// then answered too (with Connection: close) instead of finding its
// connection closed under it.
const drainIdleGrace = 500 * time.Millisecond

// acceptGrace is how long, once draining began, the connections the kernel
// has already completed (a client may have written its request on one)
// are still taken from the listen queue and answered, with Connection:
// close, before the listener closes. Closing at once would reset them.
const acceptGrace = 100 * time.Millisecond

// drainer lets an http.Server finish on SIGTERM without losing a request
// it accepted. http.Server.Shutdown closes idle keep-alive connections at
// once, and a client may have sent its next request on one already: that
// request is lost (a POST is not retried). Draining first stops accepting,
// answers every request with Connection: close, and waits until every
// connection is closed or has been idle for drainIdleGrace; Shutdown then
// closes those and waits for nothing in flight.
type drainer struct {
	draining atomic.Bool

	mu    sync.Mutex
	conns map[net.Conn]connState
}

type connState struct {
	state http.ConnState
	since time.Time
}

// install makes srv's handler answer with Connection: close while
// draining and records its connections' states.
func (d *drainer) install(srv *http.Server) {
	d.conns = map[net.Conn]connState{}
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		d.mu.Lock()
		defer d.mu.Unlock()
		switch s {
		case http.StateClosed, http.StateHijacked: // a listen stream is waited for on its own
			delete(d.conns, c)
		default:
			d.conns[c] = connState{state: s, since: time.Now()}
		}
	}
}

// drain stops accepting on ln (a listener from listen), then returns once
// no connection is busy and every idle one has been idle for
// drainIdleGrace since draining began, or when ctx ends.
func (d *drainer) drain(ctx context.Context, ln net.Listener) {
	start := time.Now()
	d.draining.Store(true)
	if dl, ok := ln.(*drainListener); ok {
		dl.stop(start.Add(acceptGrace))
		select { // the queue taken, the listener closed
		case <-dl.closed:
		case <-ctx.Done():
		}
	} else {
		_ = ln.Close()
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !d.settled(start) {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (d *drainer) settled(start time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	for _, s := range d.conns {
		idleFrom := s.since
		if idleFrom.Before(start) {
			idleFrom = start
		}
		if s.state != http.StateIdle || now.Sub(idleFrom) < drainIdleGrace {
			return false // busy (or new: its request is on the way), or idle only briefly
		}
	}
	return true
}

// drainListener is a TCP listener that, told to stop, keeps accepting
// what is already queued until a deadline, then closes: a connection the
// kernel completed is answered rather than reset.
type drainListener struct {
	*net.TCPListener
	stopping  atomic.Bool
	until     atomic.Int64 // unix nanoseconds
	closed    chan struct{}
	closeOnce sync.Once
}

// listen wraps ln for drain (ln unchanged when it is not TCP).
func (d *drainer) listen(ln net.Listener) net.Listener {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return ln
	}
	return &drainListener{TCPListener: tl, closed: make(chan struct{})}
}

// acceptPoll is how often a stopping listener looks at its queue again.
const acceptPoll = 5 * time.Millisecond

func (l *drainListener) stop(until time.Time) {
	l.until.Store(until.UnixNano())
	l.stopping.Store(true)
	_ = l.SetDeadline(time.Now().Add(acceptPoll)) // wakes a blocked Accept
}

func (l *drainListener) Accept() (net.Conn, error) {
	for {
		c, err := l.TCPListener.Accept()
		if err == nil || !l.stopping.Load() {
			return c, err
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			l.Close()
			return nil, err
		}
		if time.Now().UnixNano() < l.until.Load() {
			_ = l.SetDeadline(time.Now().Add(acceptPoll))
			continue
		}
		l.Close()
		return nil, net.ErrClosed
	}
}

func (l *drainListener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		err = l.TCPListener.Close()
		close(l.closed)
	})
	return err
}
