package mcp

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// progressStream reports a tools/call's progress (_meta.progressToken, both
// eras): the response becomes an event stream at the first report
// (notifications/progress events, then the final response, sent by the one
// writer). A tool that reports nothing is answered as plain JSON. Closing
// the stream cancels the request's context, which stops the tool.
//
// Reports are dropped, never an error, when the token is not a string or an
// integer (the spec allows no other), when progress does not increase (the
// spec requires it to), and once the stream has failed or finished.
type progressStream struct {
	x     *exchange
	token json.RawMessage

	mu   sync.Mutex // a tool may report from several goroutines
	last float64
	sent bool
}

// progressWriteTimeout bounds one write on a tools/call event stream (see
// eventStream): a client that stops reading is cut off and its call
// cancelled.
const progressWriteTimeout = 30 * time.Second

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
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
	if p.x.events().notify("notifications/progress", params) {
		p.last, p.sent = progress, true
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
