package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// CodeTooManySubscriptions answers a listen request over the stream caps
// (HTTP 429 for the per-user cap, 503 for the instance cap or during
// shutdown). It is an application code outside the JSON-RPC reserved range.
const CodeTooManySubscriptions = -31001

type listenParams struct {
	Notifications *struct {
		ToolsListChanged      bool     `json:"toolsListChanged"`
		PromptsListChanged    bool     `json:"promptsListChanged"`
		ResourcesListChanged  bool     `json:"resourcesListChanged"`
		ResourceSubscriptions []string `json:"resourceSubscriptions"`
	} `json:"notifications"`
}

type honoured struct {
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
}

type ackParams struct {
	Meta          map[string]any `json:"_meta"`
	Notifications honoured       `json:"notifications"`
}

type listenEnd struct {
	resultFields
}

// listen answers subscriptions/listen with an SSE stream: the
// acknowledgement, then notifications/tools/list_changed whenever a tool
// this caller could see changes, comment keep-alives, and on shutdown a
// final result. The stream ends when the client closes it.
func (s *Server) listen(x *exchange) (any, *jsonrpc.Error) {
	var p listenParams
	if err := json.Unmarshal(x.req.Params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+jsonMessage(err), nil)
	}
	var h honoured
	if p.Notifications != nil {
		h.ToolsListChanged = p.Notifications.ToolsListChanged && s.hub != nil
	}
	subID := json.RawMessage(mustJSON(x.req.ID))
	var sub *subscriptions.Subscription
	if h.ToolsListChanged {
		edition := s.cfg.Edition
		visible := func(_ string, e models.Edition) bool { return e != models.EditionEE || edition == models.EditionEE }
		var err error
		sub, err = s.hub.Subscribe(x.id.User.ID, visible)
		if err != nil {
			status := http.StatusServiceUnavailable // instance cap, or shutting down
			if errors.Is(err, subscriptions.ErrTooManyForUser) {
				status = http.StatusTooManyRequests
			}
			if !errors.Is(err, subscriptions.ErrLimitExceeded) && !errors.Is(err, subscriptions.ErrClosed) {
				return nil, s.internal(x, "subscribe", err)
			}
			s.writeError(x.c, x.req.ID, status,
				jsonrpc.NewError(CodeTooManySubscriptions, capitalize(err.Error()), nil))
			return nil, nil
		}
		defer sub.Close()
	}
	sse, err := jsonrpc.NewSSE(x.c.Writer)
	if err != nil {
		return nil, s.internal(x, "open listen stream", err)
	}
	meta := map[string]any{MetaSubscriptionID: subID}
	if b, err := jsonrpc.EncodeNotification("notifications/subscriptions/acknowledged", ackParams{Meta: meta, Notifications: h}); err != nil || sse.Send(b) != nil {
		return nil, nil
	}
	changed, _ := jsonrpc.EncodeNotification("notifications/tools/list_changed", map[string]any{"_meta": meta})
	var events <-chan subscriptions.Event
	if sub != nil {
		events = sub.C()
	}
	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case <-x.ctx.Done():
			return nil, nil
		case _, ok := <-events:
			if !ok { // the hub closed: the server is shutting down
				s.endListen(x, sse, subID)
				return nil, nil
			}
			if sse.Send(changed) != nil {
				return nil, nil
			}
		case <-keep.C:
			if sse.Comment("keep-alive") != nil {
				return nil, nil
			}
		case <-s.shutdown:
			s.endListen(x, sse, subID)
			return nil, nil
		}
	}
}

// endListen sends the graceful final result of a listen request.
func (s *Server) endListen(x *exchange, sse *jsonrpc.SSE, subID json.RawMessage) {
	res := listenEnd{resultFields: s.modernFields()}
	res.Meta[MetaSubscriptionID] = subID
	if b, err := jsonrpc.EncodeResult(x.req.ID, res); err == nil {
		_ = sse.Send(b)
	}
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}
