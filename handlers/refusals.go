package handlers

import (
	"errors"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
)

// RenderRefusals answers a request refused before it was read. The
// middleware says what happened and stops ([middleware.Refuse],
// [ratelimit.Reject]); once the handlers inside RenderRefusals have run,
// it maps the refusal to its JSON-RPC error (refusalError) and writes it
// with [jsonrpc.WriteError] — without id, and with the status the one
// status table gives it in both eras ([jsonrpc.EraUnknown]) — unless
// something was written already. It records the code and class for the
// access log and the metrics. This is the only place a refusal becomes a
// body.
//
// It belongs inside RequestLogger and the metrics, so both see the status
// it writes, and outside Recovery, which refuses a panic once everything
// inside it has unwound (NewRouter installs it there, once).
func RenderRefusals(c *gin.Context) {
	c.Next()
	if len(c.Errors) == 0 || c.Writer.Written() {
		return
	}
	e := refusalError(c.Errors.Last().Err)
	f := middleware.Fields(c.Request.Context())
	f.RPCCode, f.RPCClass = e.Code, e.Class(jsonrpc.EraUnknown)
	middleware.CloseIfBodyUnread(c) // answered without waiting for the body
	jsonrpc.WriteError(c.Writer, jsonrpc.EraUnknown, jsonrpc.ID{}, e)
}

// refusalError is the JSON-RPC error a refusal is answered with: a
// *jsonrpc.Error as it is (the MCP handler refusing a body it cannot
// read, postOnly), a rate limit's 429 with its Retry-After, the middleware's
// refusals by kind. Anything else is a bug, answered as an internal error.
func refusalError(err error) *jsonrpc.Error {
	var (
		rpc     *jsonrpc.Error
		over    *ratelimit.Exceeded
		refusal *middleware.Refusal
	)
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &over):
		return jsonrpc.RateLimited(over.Message, over.RetryAfter, over.Data)
	case errors.As(err, &refusal):
		switch refusal.Kind {
		case middleware.RefusalOrigin:
			return jsonrpc.Forbidden(refusal.Message)
		case middleware.RefusalStoreUnavailable:
			return jsonrpc.StoreUnavailable()
		}
	}
	return jsonrpc.Internal()
}
