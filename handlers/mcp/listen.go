package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/resources"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// CodeTooManySubscriptions answers a listen request over the stream caps
// (HTTP 429 for the per-user cap, 503 for the instance cap or during
// shutdown). It is an application code outside the JSON-RPC reserved range.
const CodeTooManySubscriptions = -31001

// Notification methods of a listen stream.
const (
	notifyAcknowledged     = "notifications/subscriptions/acknowledged"
	notifyToolsListChanged = "notifications/tools/list_changed"
	notifyResourceUpdated  = "notifications/resources/updated"
)

type listenParams struct {
	Notifications *listenFilter `json:"notifications"`
}

// listenFilter is the requested SubscriptionFilter.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged"`
	PromptsListChanged    bool     `json:"promptsListChanged"`
	ResourcesListChanged  bool     `json:"resourcesListChanged"`
	ResourceSubscriptions []string `json:"resourceSubscriptions"`
}

// honoured is the subset of the requested filter this server delivers:
// tools list changes, and updates of the subscribed resources the caller
// may read (its prompts and its list of resources do not change).
type honoured struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
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
// this caller could see changes (or after a resync), comment keep-alives,
// and on shutdown a final result. The stream, and the slot it holds under
// the caps, ends as soon as the client closes it.
//
// Every listen stream counts against the caps, including one that asked for
// nothing this server delivers: it still holds a connection.
func (s *Server) listen(x *exchange) (any, *jsonrpc.Error) {
	var p listenParams
	if err := json.Unmarshal(x.req.Params, &p); err != nil {
		msg := jsonMessage(err)
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "notifications" {
			msg = "notifications must be an object"
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+msg, nil)
	}
	if p.Notifications == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: notifications is required (an object)", nil)
	}
	if n := len(p.Notifications.ResourceSubscriptions); n > resources.MaxSubscriptions {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf(
			"Invalid params: notifications.resourceSubscriptions has %d URIs; at most %d per stream", n, resources.MaxSubscriptions), nil)
	}
	sees, err := s.tools.Watch(x.scope(s.cfg.Edition))
	if err != nil {
		return nil, s.toolError(x, "watch tools", err)
	}
	h := honoured{ToolsListChanged: p.Notifications.ToolsListChanged && s.hub != nil}
	var watched resources.Watched
	if uris := p.Notifications.ResourceSubscriptions; len(uris) > 0 && s.hub != nil && s.context != nil {
		if watched, err = s.context.Watch(x.ctx, x.scope(s.cfg.Edition), uris); err != nil {
			return nil, s.contextError(x, "watch resources", err)
		}
		h.ResourceSubscriptions = watched.URIs
	}

	var (
		events <-chan subscriptions.Event
		sub    *subscriptions.Subscription
	)
	if s.hub != nil {
		var userID int64
		if x.id != nil && x.id.User != nil {
			userID = x.id.User.ID
		}
		if !h.ToolsListChanged {
			sees = func(string, models.Edition) bool { return false }
		}
		sub, err = s.hub.Subscribe(userID, sees, slices.Collect(maps.Keys(watched.Keys))...)
		if err != nil {
			return nil, s.refuseListen(x, err)
		}
		defer sub.Close()
		events = sub.C()
	}

	subID := json.RawMessage(mustJSON(x.req.ID))
	meta := map[string]any{MetaSubscriptionID: subID}
	ack, err := jsonrpc.EncodeNotification(notifyAcknowledged, ackParams{Meta: meta, Notifications: h})
	if err != nil {
		return nil, s.internal(x, "encode listen acknowledgement", err)
	}
	changed, err := jsonrpc.EncodeNotification(notifyToolsListChanged, map[string]any{"_meta": meta})
	if err != nil {
		return nil, s.internal(x, "encode list_changed", err)
	}
	tell := func(out *eventStream) error {
		return tellChanges(out, sub.Take(), h, changed, watched, meta)
	}
	sse, err := jsonrpc.NewSSE(x.c.Writer)
	if err != nil {
		return nil, s.internal(x, "open listen stream", err)
	}
	out := newEventStream(x, sse, s.streamWriteTimeout())
	defer out.release()
	if out.send(ack) != nil {
		return nil, nil
	}

	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case <-x.ctx.Done(): // the client closed the stream
			return nil, nil
		case _, ok := <-events:
			if !ok { // the hub closed: the server is shutting down
				s.endListen(x, out, subID)
				return nil, nil
			}
			if tell(out) != nil {
				return nil, nil
			}
		case <-keep.C:
			if out.comment("keep-alive") != nil {
				return nil, nil
			}
		case <-s.shutdown:
			// A change signalled just before the shutdown is still told,
			// so the final result never hides it.
			select {
			case _, ok := <-events:
				if ok && tell(out) != nil {
					return nil, nil
				}
			default:
			}
			s.endListen(x, out, subID)
			return nil, nil
		}
	}
}

// tellChanges sends what p says changed: list_changed when the stream
// asked for tools, and one notifications/resources/updated per subscribed
// URI whose resource changed (each once, in URI order).
func tellChanges(out *eventStream, p subscriptions.Pending, h honoured, changed []byte, w resources.Watched, meta map[string]any) error {
	if p.Tools && h.ToolsListChanged {
		if err := out.send(changed); err != nil {
			return err
		}
	}
	var uris []string
	for _, k := range p.Resources {
		uris = append(uris, w.Keys[k]...)
	}
	slices.Sort(uris)
	for _, uri := range slices.Compact(uris) {
		b, err := jsonrpc.EncodeNotification(notifyResourceUpdated, map[string]any{"uri": uri, "_meta": meta})
		if err != nil {
			return err
		}
		if err := out.send(b); err != nil {
			return err
		}
	}
	return nil
}

// refuseListen answers a listen request the hub would not register: over a
// cap (429 per user, 503 per instance) or during shutdown (503), with
// CodeTooManySubscriptions; anything else is an internal error.
func (s *Server) refuseListen(x *exchange, err error) *jsonrpc.Error {
	var (
		status int
		msg    string
	)
	switch {
	case errors.Is(err, subscriptions.ErrTooManyForUser):
		status, msg = http.StatusTooManyRequests, capReason(err)+"; close one before opening another."
	case errors.Is(err, subscriptions.ErrTooManyTotal):
		status, msg = http.StatusServiceUnavailable, capReason(err)+"; retry later."
	case errors.Is(err, subscriptions.ErrClosed):
		status, msg = http.StatusServiceUnavailable, "The server is shutting down; retry on another instance."
	default:
		return s.internal(x, "subscribe", err)
	}
	if status == http.StatusServiceUnavailable {
		x.c.Header("Retry-After", "5")
	}
	s.writeError(x.c, x.req.ID, status, jsonrpc.NewError(CodeTooManySubscriptions, msg, nil))
	return nil
}

// capReason is the specific part of a cap error, e.g. "Too many open listen
// streams for this user (limit 10)".
func capReason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return capitalize(msg)
}

// endListen sends the graceful final result of a listen request.
func (s *Server) endListen(x *exchange, out *eventStream, subID json.RawMessage) {
	meta, err := encodeMeta(map[string]any{MetaServerInfo: s.info, MetaSubscriptionID: subID})
	if err != nil {
		return
	}
	res := listenEnd{resultFields: s.modernFields()}
	res.Meta = meta
	if b, err := jsonrpc.EncodeResult(x.req.ID, res); err == nil {
		_ = out.send(b)
	}
}

// streamWriteTimeout bounds one write on an event stream. A write blocks only
// when the client has stopped reading and every buffer between us is full;
// such a client is cut off after this long so it frees its slot. Twice the
// keep-alive interval, at least 10 s.
func (s *Server) streamWriteTimeout() time.Duration {
	return max(2*s.cfg.KeepAlive, 10*time.Second)
}

// eventStream is an SSE response whose every write has a deadline, so a
// client that stops reading cannot hold its handler (and what it holds)
// forever.
type eventStream struct {
	sse     *jsonrpc.SSE
	rc      *http.ResponseController
	timeout time.Duration
}

func newEventStream(x *exchange, sse *jsonrpc.SSE, timeout time.Duration) *eventStream {
	return &eventStream{sse: sse, rc: http.NewResponseController(x.c.Writer), timeout: timeout}
}

func (e *eventStream) send(message []byte) error {
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.timeout)) // unsupported: no deadline
	return e.sse.Send(message)
}

func (e *eventStream) comment(text string) error {
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.timeout))
	return e.sse.Comment(text)
}

// release clears the write deadline: the server has none of its own, and a
// kept-alive connection's next response must not inherit ours.
func (e *eventStream) release() {
	_ = e.rc.SetWriteDeadline(time.Time{})
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
