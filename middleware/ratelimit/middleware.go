package ratelimit

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// CodeRateLimited is the JSON-RPC error code of a 429 answer. It is an
// application code outside -32768..-32000 (reserved by JSON-RPC, and by MCP
// for the protocol).
const CodeRateLimited = -31029

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

// errorBody is the JSON-RPC error of a 429. Every value is an integer, so
// formatting is enough. The id member is left out, as everywhere glmcp
// answers before reading the request: the body is not read here, and the
// 2026-07-28 schema allows no null id.
func errorBody(retryAfter int64, limit int, window int64) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","error":{"code":%d,`+
		`"message":"Rate limit exceeded, retry in %d seconds",`+
		`"data":{"retryAfterSeconds":%d,"limit":%d,"windowSeconds":%d}}}`,
		CodeRateLimited, retryAfter, retryAfter, limit, window)
}

// Reject answers 429 with Retry-After (whole seconds, at least 1) and the
// rate-limit JSON-RPC error body for l's limit, and aborts the chain.
func Reject(c *gin.Context, l *Limiter, retryAfter time.Duration) {
	secs := max(1, ceilSeconds(retryAfter))
	c.Header("Retry-After", strconv.FormatInt(secs, 10))
	c.Data(http.StatusTooManyRequests, "application/json", errorBody(secs, l.limit.Requests, windowSeconds(l.limit.Per)))
	c.Abort()
}
