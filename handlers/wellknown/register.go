package wellknown

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// Register serves the metadata documents on r: GET and HEAD with the
// document, OPTIONS as a CORS preflight. Only cfg.Resources are described
// (the root document is the first's), so any other path is the router's
// 404.
//
// Without an authorization server no document is served (404): a document
// naming none sends MCP clients to register themselves with glmcp. Such
// clients still try dynamic client registration at /register, after a 401,
// sending the headers they were configured with; it answers 400 with an
// RFC 7591 error that says what is wrong with the token they sent
// (cfg.ExplainCredential), or which token to send, so that is what the
// user reads.
func Register(r gin.IRoutes, cfg Config) {
	if len(cfg.AuthorizationServers) == 0 {
		r.POST(RegistrationPath, noRegistration(cfg.ExplainCredential))
		return
	}
	for i, res := range cfg.Resources {
		doc := document(Metadata(cfg, res))
		if i == 0 {
			route(r, MetadataPath, doc)
		}
		route(r, MetadataPath+res.Path, doc)
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

// RegistrationPath is where MCP clients without authorization server
// metadata try dynamic client registration (the MCP authorization spec's
// default endpoints).
const RegistrationPath = "/register"

// NoRegistrationDescription is the error_description of a registration
// attempt when no authorization server is configured and the attempt
// carries no credential.
const NoRegistrationDescription = "This GitLab MCP server has no OAuth sign-in, so clients cannot register or sign in. " +
	"Configure the client to send a GitLab personal access token with the mcp scope as the header " +
	"\"Authorization: Bearer TOKEN\"."

// NoRegistrationNote follows the explanation of a refused credential in a
// registration error's description.
const NoRegistrationNote = "(This GitLab MCP server has no OAuth sign-in; the client tried to register because the token was refused.)"

// noRegistration refuses dynamic client registration (RFC 7591 §3.2.2),
// saying what is wrong with the credential sent along when explain says so.
func noRegistration(explain func(*gin.Context) string) gin.HandlerFunc {
	return func(c *gin.Context) {
		desc := NoRegistrationDescription
		if explain != nil {
			if why := explain(c); why != "" {
				desc = why + " " + NoRegistrationNote
			}
		}
		c.Header("Cache-Control", "no-store")
		c.JSON(http.StatusBadRequest, gin.H{"error": "invalid_client_metadata", "error_description": desc})
	}
}
