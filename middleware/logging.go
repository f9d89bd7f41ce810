package middleware

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// RequestIDHeader carries the request id (GitLab's name).
const RequestIDHeader = "X-Request-Id"

// RequestLogger assigns a request id (echoing a sane incoming one), exposes
// LogFields to handlers and writes one access-log line per request. It
// never logs headers, bodies or tokens.
func RequestLogger(logger *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		id := c.GetHeader(RequestIDHeader)
		if !validRequestID(id) {
			id = newRequestID()
		}
		c.Header(RequestIDHeader, id)
		f := &LogFields{RequestID: id}
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), fieldsKey{}, f))
		c.Next()

		attrs := make([]slog.Attr, 0, 14)
		attrs = append(attrs,
			slog.String("request_id", f.RequestID),
			slog.String("http_method", c.Request.Method),
			slog.String("path", c.Request.URL.Path),
			slog.Int("status", c.Writer.Status()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("remote_ip", c.ClientIP()),
		)
		if f.UserID != 0 {
			attrs = append(attrs, slog.Int64("user_id", f.UserID))
		}
		for _, kv := range [...][2]string{
			{"era", f.Era}, {"rpc_method", f.RPCMethod}, {"tool", f.Tool},
			{"client_name", f.ClientName}, {"client_version", f.ClientVersion},
		} {
			if kv[1] != "" {
				attrs = append(attrs, slog.String(kv[0], kv[1]))
			}
		}
		if f.RPCCode != 0 {
			attrs = append(attrs, slog.Int("rpc_code", f.RPCCode))
		}
		if outcome, class := f.ToolOutcome(c.Writer.Status()); outcome != "" {
			attrs = append(attrs, slog.String("outcome", outcome))
			if class != "" {
				attrs = append(attrs, slog.String("error_class", class))
			}
		}
		if f.AuthError != "" {
			attrs = append(attrs, slog.String("auth_error", f.AuthError))
		}
		if f.Reason != "" {
			attrs = append(attrs, slog.String("reason", withoutCredential(f.Reason, c.Request)))
		}
		level := slog.LevelInfo
		if strings.HasPrefix(c.Request.URL.Path, "/-/") && c.Writer.Status() < 400 {
			// Liveness and readiness probes come every few seconds: a
			// healthy answer is not news.
			level = slog.LevelDebug
		}
		logger.LogAttrs(c.Request.Context(), level, "request", attrs...)
	}
}

// withoutCredential returns reason with the request's credential, should it
// ever appear there, replaced: reasons are written never to hold it, and
// the log must not depend on that alone.
func withoutCredential(reason string, r *http.Request) string {
	if t := CredentialOf(r).Token; len(t) >= 4 && strings.Contains(reason, t) {
		return strings.ReplaceAll(reason, t, "[credential]")
	}
	return reason
}

func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [13]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
