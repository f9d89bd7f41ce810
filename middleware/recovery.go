package middleware

import (
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/gin-gonic/gin"
)

// Recovery turns a panic into a [RefusalInternal] refusal (a JSON-RPC
// internal error, 500, once rendered) and logs it once with its stack. A
// panic is a bug; the client learns nothing of it. The renderer must sit
// outside Recovery: a panic unwinds everything inside it.
func Recovery(logger *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				logger.ErrorContext(c.Request.Context(), "panic", "error", r, "stack", string(debug.Stack()), "request_id", Fields(c.Request.Context()).RequestID)
				if !c.Writer.Written() {
					Refuse(c, &Refusal{Kind: RefusalInternal})
				}
				c.Abort()
			}
		}()
		c.Next()
	}
}
