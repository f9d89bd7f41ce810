package middleware

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/gin-gonic/gin"
)

// AllowClients serves only clients whose address is in allowlist (IPs or
// CIDRs; invalid entries are ignored, app.Config.Validate refuses them
// first) and answers everyone else 404, as GitLab's monitoring allowlist
// does for its metrics and health endpoints: a scraper outside it learns
// nothing, not even that the endpoint exists. The client address is
// gin's ClientIP (the peer address unless a trusted proxy names another).
func AllowClients(allowlist []string) gin.HandlerFunc {
	var prefixes []netip.Prefix
	for _, s := range allowlist {
		if p, err := netip.ParsePrefix(s); err == nil {
			prefixes = append(prefixes, p.Masked())
		} else if a, err := netip.ParseAddr(s); err == nil {
			prefixes = append(prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
	}
	return func(c *gin.Context) {
		ip := c.ClientIP()
		if h, _, err := net.SplitHostPort(ip); err == nil {
			ip = h
		}
		if a, err := netip.ParseAddr(strings.TrimSpace(ip)); err == nil {
			a = a.Unmap()
			for _, p := range prefixes {
				if p.Contains(a) {
					return
				}
			}
		}
		c.Data(http.StatusNotFound, "text/plain; charset=utf-8", []byte("404 Not Found"))
		c.Abort()
	}
}
