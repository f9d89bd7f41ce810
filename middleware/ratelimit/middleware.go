package ratelimit

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// Exceeded is a request refused for going over a limit: a rate limit, the
// failed-authentication budget, or another cap that asks the client to
// slow down. [Reject] (or the middleware's Refuse) attaches it to the
// request; the handlers layer answers it 429 with Retry-After: RetryAfter
// and the rate-limit JSON-RPC error (code -31029) carrying Message and
// Data.
type Exceeded struct {
	// Message is the error's message, for the client.
	Message string
	// RetryAfter is when to retry, in whole seconds (at least 1 is sent).
	RetryAfter int64
	// Data is the error's data member.
	Data any
}

func (e *Exceeded) Error() string { return e.Message }

// Middleware limits requests by keyFunc(c): the caller passes the user id
// and route group for authenticated requests, or the client address for
// unauthenticated ones. An empty key means "not limited here" (for example
// a request with a credential, limited per user after authentication): it
// passes without RateLimit headers. A nil keyFunc keys by "ip:" +
// c.ClientIP(). A nil or disabled limiter lets everything through without
// headers.
func Middleware(l *Limiter, keyFunc func(*gin.Context) string) gin.HandlerFunc {
	if keyFunc == nil {
		keyFunc = func(c *gin.Context) string { return "ip:" + c.ClientIP() }
	}
	return MiddlewareLimits(l, func(c *gin.Context) (string, Limits) { return keyFunc(c), nil })
}

// MiddlewareLimits is Middleware with limits per request: keyFunc returns
// the key and the windows that apply to it (a user's own list), or none
// for the limiter's. Every window is enforced; the RateLimit headers and a
// 429's data name the window closest to running out.
func MiddlewareLimits(l *Limiter, keyFunc func(*gin.Context) (string, Limits)) gin.HandlerFunc {
	if !l.Enabled() {
		return func(c *gin.Context) { c.Next() }
	}
	return func(c *gin.Context) {
		key, ls := keyFunc(c)
		if key == "" {
			c.Next()
			return
		}
		d := l.TakeAll(c.Request.Context(), key, ls)
		setHeaders(c, d.Limit, d)
		if d.OK {
			c.Next()
			return
		}
		RejectLimit(c, d.Limit, d.RetryAfter)
	}
}

// SetHeaders sets the RateLimit-* headers of the answer to c for d, a
// decision of l under its own limit (a budget checked outside
// [Middleware], such as the failed authentications). A nil or disabled
// limiter sets none.
func (l *Limiter) SetHeaders(c *gin.Context, d Decision) {
	if l.Enabled() {
		lim := d.Limit
		if !lim.valid() {
			lim = l.limit
		}
		setHeaders(c, lim, d)
	}
}

// setHeaders sets the RateLimit-* headers for d under lim.
func setHeaders(c *gin.Context, lim Limit, d Decision) {
	h := c.Writer.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(lim.Requests))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("RateLimit-Reset", strconv.FormatInt(ceilSeconds(d.Reset), 10))
	h.Set("RateLimit-Policy", lim.Policy())
}

// rateLimitData is the data member of a 429's error.
type rateLimitData struct {
	RetryAfterSeconds int64 `json:"retryAfterSeconds"`
	Limit             int   `json:"limit"`
	WindowSeconds     int64 `json:"windowSeconds"`
}

// Reject refuses the request for going over l's limit, to be retried after
// retryAfter (whole seconds, at least 1): it attaches an [Exceeded] and
// aborts the chain. Nothing is written here: the handlers layer answers it
// (429, Retry-After, the rate-limit JSON-RPC error, without an id member as
// everywhere glmcp answers before reading the request).
func Reject(c *gin.Context, l *Limiter, retryAfter time.Duration) {
	RejectLimit(c, l.Limit(), retryAfter)
}

// RejectLimit is Reject naming lim, the limit that applied.
func RejectLimit(c *gin.Context, lim Limit, retryAfter time.Duration) {
	secs := max(1, ceilSeconds(retryAfter))
	_ = c.Error(&Exceeded{
		Message:    fmt.Sprintf("Rate limit exceeded, retry in %d seconds", secs),
		RetryAfter: secs,
		Data:       rateLimitData{RetryAfterSeconds: secs, Limit: lim.Requests, WindowSeconds: windowSeconds(lim.Per)},
	})
	c.Abort()
}
