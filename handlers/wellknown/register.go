package wellknown

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// Register serves the metadata documents on r: GET and HEAD with the
// document, OPTIONS as a CORS preflight. The EE document is registered only
// when cfg.EEEnabled, so it is the router's 404 otherwise.
func Register(r gin.IRoutes, cfg Config) {
	ce := document(Metadata(cfg, CEPath))
	route(r, MetadataPath, ce)
	route(r, MetadataPath+CEPath, ce)
	if cfg.EEEnabled {
		route(r, MetadataPath+EEPath, document(Metadata(cfg, EEPath)))
	}
}

func route(r gin.IRoutes, path string, h gin.HandlerFunc) {
	r.GET(path, h)
	r.HEAD(path, h)
	r.OPTIONS(path, preflight)
}

// document returns a handler serving m, encoded once.
func document(m ResourceMetadata) gin.HandlerFunc {
	body := encode(m)
	length := strconv.Itoa(len(body))
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", length)
		if c.Request.Method == http.MethodHead {
			c.Status(http.StatusOK)
			return
		}
		c.Data(http.StatusOK, "application/json", body)
	}
}

// preflight answers a CORS preflight: any origin may GET the documents, with
// any request headers (MCP clients send MCP-Protocol-Version). The
// documents are fetched without credentials, so the wildcard is allowed.
func preflight(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	if req := c.GetHeader("Access-Control-Request-Headers"); req != "" {
		// Echoed rather than "*": browsers that predate the wildcard
		// need the names.
		h.Set("Access-Control-Allow-Headers", req)
	} else {
		h.Set("Access-Control-Allow-Headers", "*")
	}
	h.Add("Vary", "Access-Control-Request-Headers")
	h.Set("Access-Control-Max-Age", "86400")
	c.Status(http.StatusNoContent)
}
