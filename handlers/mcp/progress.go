package mcp

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
)

// progressStream turns a Modern request whose client asked for progress
// (_meta.progressToken) into an SSE response at the first progress report:
// notifications/progress events, then the final response. A tool that
// reports nothing is answered as plain JSON. Closing the stream cancels the
// request's context, which stops the tool.
//
// Reports are dropped, never an error, when the token is not a string or an
// integer (the spec allows no other), when progress does not increase (the
// spec requires it to), and once the stream has failed or finished.
type progressStream struct {
	x     *exchange
	token json.RawMessage

	mu   sync.Mutex // a tool may report from several goroutines
	sse  *jsonrpc.SSE
	out  *eventStream
	last float64
	sent bool
	dead bool
}

// progressWriteTimeout bounds one write on a progress stream (see
// eventStream): a client that stops reading is cut off and its call
// cancelled.
const progressWriteTimeout = 30 * time.Second

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// streaming reports whether the response became an event stream.
func (p *progressStream) streaming() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sse != nil
}

func (p *progressStream) report(progress, total float64, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if (p.sent && progress <= p.last) || !validProgressToken(p.token) {
		return
	}
	params := progressParams{ProgressToken: p.token, Progress: progress, Message: message}
	if total > 0 {
		params.Total = &total
	}
	if p.sendLocked("notifications/progress", params) {
		p.last, p.sent = progress, true
	}
}

// notify sends one notification on the response stream (progress and log
// messages share it and its one final response).
func (p *progressStream) notify(method string, params any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sendLocked(method, params)
}

// sendLocked turns the response into an event stream at the first
// notification and sends one; it reports whether it was sent. p.mu is
// held.
func (p *progressStream) sendLocked(method string, params any) bool {
	if p.dead || p.x.ctx.Err() != nil {
		return false
	}
	if p.sse == nil {
		sse, err := jsonrpc.NewSSE(p.x.c.Writer)
		if err != nil { // cannot stream: the result goes out as JSON
			p.dead = true
			return false
		}
		p.sse = sse
		p.out = newEventStream(p.x, sse, progressWriteTimeout)
	}
	b, err := jsonrpc.EncodeNotification(method, params)
	if err == nil {
		err = p.out.send(b)
	}
	if err != nil {
		p.dead = true
		return false
	}
	return true
}

// finish sends the final response on the stream; no progress follows it.
func (p *progressStream) finish(result any, e *jsonrpc.Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out != nil {
		defer p.out.release()
	}
	if p.dead || p.sse == nil || p.x.ctx.Err() != nil {
		p.dead = true
		return
	}
	p.dead = true
	var (
		b   []byte
		err error
	)
	if e != nil {
		if e.Code == jsonrpc.CodeInternalError { // never leak details
			e = jsonrpc.Internal()
		}
		b, err = jsonrpc.EncodeError(p.x.req.ID, e)
	} else {
		b, err = jsonrpc.EncodeResult(p.x.req.ID, result)
	}
	if err == nil {
		_ = p.out.send(b)
	}
}

// validProgressToken reports whether raw is a JSON string or integer.
func validProgressToken(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}
