package middleware

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
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
	sawEOF bool // the whole body was read
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
	b.done, b.sawEOF = true, lift
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
	return openBodies(max, "this user", func(c *gin.Context) (string, bool) {
		id := IdentityFrom(c.Request.Context())
		if id == nil || id.User == nil {
			return "", false
		}
		return strconv.FormatInt(id.User.ID, 10), true
	})
}

// OpenRequestsPerAddress is OpenRequests per client address (gin's
// ClientIP, which follows only trusted proxies): many tokens from one
// address cannot hold more than max bodies still arriving either. Requests
// without a valid credential never get here (RequireAuth answers them from
// the headers alone), so they never hold a body open.
func OpenRequestsPerAddress(max int) gin.HandlerFunc {
	return openBodies(max, "from this address", func(c *gin.Context) (string, bool) {
		return c.ClientIP(), true
	})
}

// openBodies counts the requests of each key whose body is still
// arriving and refuses the one past max with a 429 naming who (its
// message says "%d requests <who> are still sending their body").
func openBodies(max int, who string, keyOf func(*gin.Context) (string, bool)) gin.HandlerFunc {
	var (
		mu   sync.Mutex
		open = map[string]int{}
	)
	return func(c *gin.Context) {
		key, ok := keyOf(c)
		if max <= 0 || !ok {
			c.Next()
			return
		}
		mu.Lock()
		if open[key] >= max {
			mu.Unlock()
			// A rate limit's refusal: the client should slow down the same way.
			Refuse(c, &ratelimit.Exceeded{
				Message:    fmt.Sprintf("Too many open requests: %d requests %s are still sending their body; retry when they are done", max, who),
				RetryAfter: 1, Data: openRequestsData{RetryAfterSeconds: 1, Limit: max}})
			return
		}
		open[key]++
		mu.Unlock()
		var once sync.Once
		release := func() {
			once.Do(func() {
				mu.Lock()
				if open[key]--; open[key] <= 0 {
					delete(open, key)
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

// CloseIfBodyUnread ends the connection with the response when the
// request's body has not been read (whole): a refusal answered from the
// headers alone. net/http would otherwise read what is left of the body
// (up to 256 KiB) before it sends the response, and again when it closes
// the body, so a client dripping its body would wait for its answer, and
// hold the connection, as long as it drips. Connection: close answers at
// once; a read deadline of now ends the server's discarding read, so the
// connection closes right after the answer. Call it before the response
// is written.
func CloseIfBodyUnread(c *gin.Context) {
	r := c.Request
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return
	}
	if b, ok := r.Body.(*deadlineBody); ok {
		b.mu.Lock()
		read := b.done && b.sawEOF
		b.mu.Unlock()
		if read {
			return
		}
	}
	c.Header("Connection", "close")
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now())
}
