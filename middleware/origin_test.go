package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/middleware"
)

func TestCheckOrigin(t *testing.T) {
	const (
		badOrigin = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: invalid Origin header"}}`
		badHost   = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: invalid Host header"}}`
	)
	var (
		open     = middleware.OriginPolicy{}
		allowed  = middleware.OriginPolicy{AllowedOrigins: []string{" https://App.Example.com/ "}}
		star     = middleware.OriginPolicy{AllowedOrigins: []string{"*"}}
		loopback = middleware.OriginPolicy{LoopbackOnly: true}
		withHost = middleware.OriginPolicy{LoopbackOnly: true, AllowedHosts: []string{"MCP.internal"}}
		withPort = middleware.OriginPolicy{LoopbackOnly: true, AllowedHosts: []string{"mcp.internal:8080"}}
	)
	tests := []struct {
		name   string
		policy middleware.OriginPolicy
		origin string
		host   string
		want   string // "" means allowed; otherwise the 403 body
	}{
		{"no Origin", open, "", "gitlab.example.com", ""},
		{"localhost origin", open, "http://localhost:6274", "gitlab.example.com", ""},
		{"localhost origin without port", open, "http://localhost", "gitlab.example.com", ""},
		{"127.0.0.1 origin", open, "http://127.0.0.1:1", "gitlab.example.com", ""},
		{"127.x origin", open, "http://127.1.2.3:8000", "gitlab.example.com", ""},
		{"::1 origin", open, "http://[::1]:3000", "gitlab.example.com", ""},
		{"*.localhost origin", open, "https://app.localhost", "gitlab.example.com", ""},
		{"upper-case localhost origin", open, "http://LOCALHOST:6274", "gitlab.example.com", ""},
		{"foreign origin", open, "https://evil.example.com", "gitlab.example.com", badOrigin},
		{"localhost as a subdomain label", open, "http://localhost.evil.com", "gitlab.example.com", badOrigin},
		{"name ending in localhost", open, "http://evillocalhost", "gitlab.example.com", badOrigin},
		{"127.0.0.1 as a subdomain label", open, "http://127.0.0.1.nip.io", "gitlab.example.com", badOrigin},
		{"null origin", open, "null", "gitlab.example.com", badOrigin},
		{"non-http loopback origin", open, "file://localhost", "gitlab.example.com", badOrigin},
		{"allowed origin", allowed, "https://app.example.com", "gitlab.example.com", ""},
		{"allowed origin, other case", allowed, "HTTPS://APP.EXAMPLE.COM", "gitlab.example.com", ""},
		{"allowed origin, other port", allowed, "https://app.example.com:8443", "gitlab.example.com", badOrigin},
		{"allowed origin, other scheme", allowed, "http://app.example.com", "gitlab.example.com", badOrigin},
		{"not the allowed origin", allowed, "https://other.example.com", "gitlab.example.com", badOrigin},
		{"loopback origin with an allow list", allowed, "http://localhost:6274", "gitlab.example.com", ""},
		{"wildcard", star, "https://anything.example", "gitlab.example.com", ""},
		{"any host without LoopbackOnly", open, "", "evil.example.com", ""},
		{"loopback: localhost:8080", loopback, "", "localhost:8080", ""},
		{"loopback: LOCALHOST", loopback, "", "LOCALHOST", ""},
		{"loopback: 127.0.0.1", loopback, "", "127.0.0.1", ""},
		{"loopback: [::1]:80", loopback, "", "[::1]:80", ""},
		{"loopback: [::1]", loopback, "", "[::1]", ""},
		{"loopback: foreign host", loopback, "", "evil.example.com", badHost},
		{"loopback: foreign host with port", loopback, "", "evil.example.com:8080", badHost},
		{"loopback: 127.0.0.1 as a subdomain label", loopback, "", "127.0.0.1.evil.com", badHost},
		{"loopback: name ending in localhost", loopback, "", "evillocalhost:8080", badHost},
		{"loopback: *.localhost", loopback, "", "mcp.localhost:8080", ""},
		{"loopback: good host, foreign origin", loopback, "https://evil.example.com", "localhost:8080", badOrigin},
		{"loopback: bad host beats a loopback origin", loopback, "http://localhost:6274", "evil.example.com", badHost},
		{"allowed host without port", withHost, "", "mcp.internal", ""},
		{"allowed host without port, request with port", withHost, "", "mcp.internal:8080", ""},
		{"allowed host, other name", withHost, "", "mcp.internal.evil.com", badHost},
		{"allowed host with port", withPort, "", "mcp.internal:8080", ""},
		{"allowed host with port, other port", withPort, "", "mcp.internal:9090", badHost},
		{"allowed host with port, loopback still ok", withPort, "", "localhost:8080", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nextCalls := 0
			r := gin.New()
			r.POST("/api/v4/mcp", handlers.RenderRefusals, middleware.CheckOrigin(tt.policy), func(c *gin.Context) {
				nextCalls++
				c.String(http.StatusOK, "ok")
			})
			req := httptest.NewRequest(http.MethodPost, "/api/v4/mcp", nil)
			req.Host = tt.host
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)

			if tt.want == "" {
				if w.Code != http.StatusOK || nextCalls != 1 {
					t.Fatalf("status %d, next called %d times; want 200 and 1 (body %s)", w.Code, nextCalls, w.Body)
				}
				return
			}
			if w.Code != http.StatusForbidden {
				t.Fatalf("status = %d, want 403", w.Code)
			}
			if got := w.Body.String(); got != tt.want {
				t.Fatalf("body = %s, want %s", got, tt.want)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type = %q, want application/json", ct)
			}
			if _, ok := decodeBody(t, w.Body.Bytes())["id"]; ok {
				t.Fatalf("403 body has an id")
			}
			if nextCalls != 0 {
				t.Fatalf("next handler called on 403")
			}
		})
	}
}
