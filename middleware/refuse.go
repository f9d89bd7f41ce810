package middleware

import (
	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// Refuse answers a request the chain will not serve with the JSON-RPC
// error e, before its body is read (so without an id, and with the status
// the status table gives e whatever the era), records the code for the
// access log, and aborts the chain.
func Refuse(c *gin.Context, e *jsonrpc.Error) {
	Fields(c.Request.Context()).RPCCode = e.Code
	jsonrpc.WriteError(c.Writer, jsonrpc.EraUnknown, jsonrpc.ID{}, e)
	c.Abort()
}
