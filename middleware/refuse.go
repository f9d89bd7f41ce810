package middleware

import "github.com/gin-gonic/gin"

// RefusalKind is why the chain refused a request, in the middleware's
// terms.
type RefusalKind uint8

const (
	// RefusalInternal: a fault of the server (a panic, an error
	// authentication did not expect). The client learns nothing of it.
	RefusalInternal RefusalKind = iota
	// RefusalOrigin: the Origin or Host header is not allowed (DNS
	// rebinding protection); Message says which.
	RefusalOrigin
	// RefusalStoreUnavailable: the data store cannot be reached; the
	// client should retry later.
	RefusalStoreUnavailable
)

// Refusal is a request the middleware will not serve: what happened, not
// how it is written. [Refuse] attaches it to the request; the handlers
// layer writes it (handlers.RenderRefusals). A request over a rate limit
// is refused with a *ratelimit.Exceeded instead.
type Refusal struct {
	Kind RefusalKind
	// Message is what the client is told (RefusalOrigin).
	Message string
}

func (r *Refusal) Error() string {
	switch r.Kind {
	case RefusalOrigin:
		return "refused: " + r.Message
	case RefusalStoreUnavailable:
		return "refused: store unavailable"
	}
	return "refused: internal error"
}

// Refuse ends the chain for a request it will not serve: it attaches err —
// a *Refusal, a *ratelimit.Exceeded, or, from the handlers layer, the
// *jsonrpc.Error of a request refused before it was read — and aborts.
// Nothing is written here: handlers.RenderRefusals, installed inside the
// access log and the metrics, answers it as a JSON-RPC error without id,
// with the status the one status table gives it whatever the era, once the
// chain has unwound. Headers a refusing middleware owns (a challenge, the
// RateLimit fields) are set before calling it.
func Refuse(c *gin.Context, err error) {
	_ = c.Error(err)
	c.Abort()
}
