package mcp

import (
	"encoding/json"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// progressStream turns a Modern request whose client asked for progress
// (_meta.progressToken) into an SSE response at the first progress report:
// notifications/progress events, then the final response. A tool that
// reports nothing is answered as plain JSON. Closing the stream cancels the
// request's context, which stops the tool.
type progressStream struct {
	x     *exchange
	token json.RawMessage
	sse   *jsonrpc.SSE
	dead  bool
}

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

func (p *progressStream) report(progress, total float64, message string) {
	if p.dead || p.x.ctx.Err() != nil {
		return
	}
	if p.sse == nil {
		sse, err := jsonrpc.NewSSE(p.x.c.Writer)
		if err != nil {
			p.dead = true
			return
		}
		p.sse = sse
	}
	params := progressParams{ProgressToken: p.token, Progress: progress, Message: message}
	if total > 0 {
		params.Total = &total
	}
	b, err := jsonrpc.EncodeNotification("notifications/progress", params)
	if err == nil {
		err = p.sse.Send(b)
	}
	if err != nil {
		p.dead = true
	}
}

// finish sends the final response on the stream.
func (p *progressStream) finish(result any, e *jsonrpc.Error) {
	if p.dead || p.x.ctx.Err() != nil {
		return
	}
	var (
		b   []byte
		err error
	)
	if e != nil {
		b, err = jsonrpc.EncodeError(p.x.req.ID, e)
	} else {
		b, err = jsonrpc.EncodeResult(p.x.req.ID, result)
	}
	if err == nil {
		_ = p.sse.Send(b)
	}
}
