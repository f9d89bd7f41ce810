package middleware

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
)

// ErrBodyTimeout is the error of a request body read that ran past the
// body deadline (see BodyDeadline). It wraps os.ErrDeadlineExceeded.
var ErrBodyTimeout = fmt.Errorf("request body not received in time: %w", os.ErrDeadlineExceeded)

// BodyDeadline gives a client timeout, from the start of the request, to
// send its whole body: a client dripping its body, or announcing a longer
// Content-Length than it sends, then gets ErrBodyTimeout from its body
// reads (the handler answers 408) instead of holding a goroutine and a
// descriptor for ever. The deadline is a read deadline on the connection,
// lifted once the body has been read: responses are not affected, so
// long-lived event streams keep writing (http.Server.ReadTimeout would end
// them).
//
// Put it first: it needs the server's own ResponseWriter. Where the writer
// cannot take a deadline (httptest recorders) it does nothing.
func BodyDeadline(timeout time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		rc := http.NewResponseController(c.Writer)
		if timeout <= 0 || rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
			c.Next()
			return
		}
		b := &deadlineBody{src: c.Request.Body, rc: rc}
		c.Request.Body = b
		c.Next()
		// Hooks run; a body left unread keeps its deadline, which bounds
		// the server discarding it after the response.
		b.finish(false)
	}
}

// deadlineBody is a request body read under the body deadline.
type deadlineBody struct {
	src io.ReadCloser
	rc  *http.ResponseController

	mu     sync.Mutex
	done   bool
	onDone []func()
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	switch {
	case err == io.EOF:
		b.finish(true)
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		b.finish(false)
		return n, ErrBodyTimeout
	case err != nil:
		b.finish(false)
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.src.Close() }

// finish runs the done hooks, once. With lift (the whole body is in) it
// also lifts the read deadline: what the connection reads next is the
// next request, under the server's own timeouts, or nothing while an event
// stream is written.
func (b *deadlineBody) finish(lift bool) {
	if lift {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	hooks := b.onDone
	b.onDone = nil
	b.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// whenDone runs f once the body is read (or the request ends); at once if
// it already is.
func (b *deadlineBody) whenDone(f func()) {
	b.mu.Lock()
	if !b.done {
		b.onDone = append(b.onDone, f)
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	f()
}

// openRequestsData is the data of the OpenRequests 429.
type openRequestsData struct {
	RetryAfterSeconds int `json:"retryAfterSeconds"`
	Limit             int `json:"limit"`
}

// OpenRequests counts, per authenticated user, the requests whose body is
// still arriving, and answers 429 past max: one token cannot hold more
// than max connections by sending bodies slowly. Place it after RequireAuth
// and after BodyDeadline. Requests are counted until their body is read, so
// long-lived event streams do not count against it.
func OpenRequests(max int) gin.HandlerFunc {
	var (
		mu   sync.Mutex
		open = map[int64]int{}
	)
	return func(c *gin.Context) {
		id := IdentityFrom(c.Request.Context())
		if max <= 0 || id == nil || id.User == nil {
			c.Next()
			return
		}
		uid := id.User.ID
		mu.Lock()
		if open[uid] >= max {
			mu.Unlock()
			// A rate limit's refusal: the client should slow down the same way.
			Refuse(c, &ratelimit.Exceeded{
				Message:    fmt.Sprintf("Too many open requests: %d requests of this user are still sending their body; retry when they are done", max),
				RetryAfter: 1, Data: openRequestsData{RetryAfterSeconds: 1, Limit: max}})
			return
		}
		open[uid]++
		mu.Unlock()
		var once sync.Once
		release := func() {
			once.Do(func() {
				mu.Lock()
				if open[uid]--; open[uid] <= 0 {
					delete(open, uid)
				}
				mu.Unlock()
			})
		}
		if b, ok := c.Request.Body.(*deadlineBody); ok {
			b.whenDone(release)
		}
		defer release()
		c.Next()
	}
}
