package middleware

import (
	"net"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// OriginPolicy protects the MCP endpoints against DNS rebinding: a browser
// page on a foreign origin must not reach a server it resolved to a local
// address (spec: Streamable HTTP, Security).
type OriginPolicy struct {
	// AllowedOrigins are exact origins ("https://app.example.com"), or "*".
	AllowedOrigins []string
	// AllowedHosts are Host header values (host or host:port) accepted in
	// addition to loopback names. Empty with LoopbackOnly=false: any host.
	AllowedHosts []string
	// LoopbackOnly restricts the Host header to loopback names and
	// AllowedHosts; set when the server listens on a loopback address.
	LoopbackOnly bool
}

// CheckOrigin refuses (403, a JSON-RPC error without id) a request
// whose Origin header is present and not allowed, or (LoopbackOnly) whose
// Host is not a loopback name or an allowed host. Loopback origins
// (http://localhost:*, http://127.0.0.1:*, http://[::1]:*) are always
// allowed: a page there already runs on the user's machine.
func CheckOrigin(p OriginPolicy) gin.HandlerFunc {
	origins := make(map[string]bool, len(p.AllowedOrigins))
	any := false
	for _, o := range p.AllowedOrigins {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "*" {
			any = true
		}
		origins[strings.ToLower(o)] = true
	}
	hosts := make(map[string]bool, len(p.AllowedHosts))
	for _, h := range p.AllowedHosts {
		hosts[strings.ToLower(strings.TrimSpace(h))] = true
	}
	return func(c *gin.Context) {
		if p.LoopbackOnly {
			host := strings.ToLower(c.Request.Host)
			if !hosts[host] && !hosts[hostOnly(host)] && !isLoopbackHost(hostOnly(host)) {
				forbidden(c, "Forbidden: invalid Host header")
				return
			}
		}
		origin := c.GetHeader("Origin")
		if origin == "" || any || origins[strings.ToLower(origin)] {
			c.Next()
			return
		}
		u, err := url.Parse(origin)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackHost(u.Hostname()) {
			c.Next()
			return
		}
		forbidden(c, "Forbidden: invalid Origin header")
	}
}

func forbidden(c *gin.Context, msg string) {
	f := Fields(c.Request.Context())
	f.AuthError, f.Reason = "origin", msg
	Refuse(c, &Refusal{Kind: RefusalOrigin, Message: msg})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopbackHost(h string) bool {
	h = strings.Trim(strings.ToLower(h), "[]")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
