package ratelimit

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// CodeRateLimited is the JSON-RPC error code of a 429 (jsonrpc's): an
// application code outside -32768..-32000 (reserved by JSON-RPC, and by
// MCP for the protocol).
const CodeRateLimited = jsonrpc.CodeRateLimited

// Middleware limits requests by keyFunc(c): the caller passes the user id
// and route group for authenticated requests, or the client address for
// unauthenticated ones. An empty key means "not limited here" (for example
// a request with a credential, limited per user after authentication): it
// passes without RateLimit headers. A nil keyFunc keys by "ip:" +
// c.ClientIP(). A nil or disabled limiter lets everything through without
// headers.
func Middleware(l *Limiter, keyFunc func(*gin.Context) string) gin.HandlerFunc {
	if !l.Enabled() {
		return func(c *gin.Context) { c.Next() }
	}
	limit := strconv.Itoa(l.limit.Requests)
	policy := l.limit.Policy()
	return func(c *gin.Context) {
		var key string
		if keyFunc != nil {
			key = keyFunc(c)
		} else {
			key = "ip:" + c.ClientIP()
		}
		if key == "" {
			c.Next()
			return
		}
		ok, remaining, retryAfter, reset := l.Allow(key)
		h := c.Writer.Header()
		h.Set("RateLimit-Limit", limit)
		h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
		h.Set("RateLimit-Reset", strconv.FormatInt(ceilSeconds(reset), 10))
		h.Set("RateLimit-Policy", policy)
		if ok {
			c.Next()
			return
		}
		Reject(c, l, retryAfter)
	}
}

// rateLimitData is the data member of a 429's error.
type rateLimitData struct {
	RetryAfterSeconds int64 `json:"retryAfterSeconds"`
	Limit             int   `json:"limit"`
	WindowSeconds     int64 `json:"windowSeconds"`
}

// Reject answers 429 with Retry-After (whole seconds, at least 1) and the
// rate-limit JSON-RPC error for l's limit, and aborts the chain. The id
// member is left out, as everywhere glmcp answers before reading the
// request: the body is not read here.
func Reject(c *gin.Context, l *Limiter, retryAfter time.Duration) {
	secs := max(1, ceilSeconds(retryAfter))
	jsonrpc.WriteError(c.Writer, jsonrpc.EraUnknown, jsonrpc.ID{}, jsonrpc.RateLimited(
		fmt.Sprintf("Rate limit exceeded, retry in %d seconds", secs), secs,
		rateLimitData{RetryAfterSeconds: secs, Limit: l.limit.Requests, WindowSeconds: windowSeconds(l.limit.Per)}))
	c.Abort()
}
