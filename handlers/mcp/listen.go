package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/resources"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

// Notification methods of a listen stream.
const (
	notifyAcknowledged     = "notifications/subscriptions/acknowledged"
	notifyToolsListChanged = "notifications/tools/list_changed"
	notifyResourceUpdated  = "notifications/resources/updated"
)

type listenParams struct {
	metaParams
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
// this caller could see changes (or after a resync) and
// notifications/resources/updated for the subscribed resources, comment
// keep-alives, and on shutdown a final result (returned, for the one
// writer to send as the stream's last event). The stream, and the slot it
// holds under the caps, ends as soon as the client closes it.
//
// Every listen stream counts against the caps, including one that asked for
// nothing this server delivers: it still holds a connection.
func (s *Server) listen(x *exchange, p *listenParams) (any, error) {
	if p.Notifications == nil {
		return nil, jsonrpc.InvalidParams("notifications is required (an object)")
	}
	if n := len(p.Notifications.ResourceSubscriptions); n > resources.MaxSubscriptions {
		return nil, jsonrpc.InvalidParams("notifications.resourceSubscriptions has %d URIs; at most %d per stream", n, resources.MaxSubscriptions)
	}
	sees, err := s.tools.Watch(x.scope(s.cfg.Edition))
	if err != nil {
		return nil, err
	}
	h := honoured{ToolsListChanged: p.Notifications.ToolsListChanged && s.hub != nil}
	var watched resources.Watched
	if uris := p.Notifications.ResourceSubscriptions; len(uris) > 0 && s.hub != nil && s.context != nil {
		if watched, err = s.context.Watch(x.ctx, x.scope(s.cfg.Edition), uris); err != nil {
			return nil, err
		}
		h.ResourceSubscriptions = watched.URIs
	}

	// The subscription id is a copy of the request id's bytes: the stream
	// keeps nothing of the request (its body) for its whole life.
	l := &listener{srv: s, subID: json.RawMessage(mustJSON(x.req.ID)), h: h, watched: watched}
	var (
		events <-chan subscriptions.Event
		raw    *rawStream
	)
	if s.hub != nil {
		var userID int64
		if x.id != nil && x.id.User != nil {
			userID = x.id.User.ID
		}
		if !h.ToolsListChanged {
			sees = func(string, models.Edition) bool { return false }
		}
		keys := slices.Collect(maps.Keys(watched.Keys))
		if canHijack(x) {
			raw = &rawStream{listener: l}
			l.sub, err = s.hub.SubscribeFunc(userID, sees, raw.wake, keys...)
		} else {
			l.sub, err = s.hub.Subscribe(userID, sees, keys...)
		}
		if err != nil {
			return nil, refuseListen(err)
		}
	}

	ack, err := jsonrpc.EncodeNotification(notifyAcknowledged, ackParams{Meta: l.meta(), Notifications: h})
	if err != nil {
		l.close()
		return nil, fmt.Errorf("encode listen acknowledgement: %w", err)
	}
	if raw != nil {
		return nil, s.serveRaw(x, raw, ack)
	}
	defer l.close()
	if l.sub != nil {
		events = l.sub.C()
	}
	out := x.events()
	if err := out.start(); err != nil {
		return nil, fmt.Errorf("open listen stream: %w", err)
	}
	if err := out.send(ack); err != nil {
		return nil, err
	}

	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case <-x.ctx.Done(): // the client closed the stream
			return nil, x.ctx.Err()
		case _, ok := <-events:
			if !ok { // the hub closed: the server is shutting down
				return s.listenEnd(l.subID)
			}
			if err := l.tell(out); err != nil {
				return nil, err
			}
		case <-keep.C:
			if err := out.comment("keep-alive"); err != nil {
				return nil, err
			}
		case <-s.shutdown:
			// A change signalled just before the shutdown is still told,
			// so the final result never hides it.
			select {
			case _, ok := <-events:
				if ok {
					if err := l.tell(out); err != nil {
						return nil, err
					}
				}
			default:
			}
			return s.listenEnd(l.subID)
		}
	}
}

// listener is what one listen stream keeps once acknowledged: what it
// tells and how, whichever way its events are written (the request's
// eventStream, or the hijacked connection, see rawStream).
type listener struct {
	srv     *Server
	sub     *subscriptions.Subscription // nil without a hub
	subID   json.RawMessage             // the request id's JSON text
	h       honoured
	watched resources.Watched
}

// sender writes one encoded message as an event of a started stream.
type sender interface {
	send(message []byte) error
}

func (l *listener) meta() map[string]any {
	return map[string]any{MetaSubscriptionID: l.subID}
}

// tell sends what changed since the last call (see tellChanges).
func (l *listener) tell(out sender) error {
	if l.sub == nil {
		return nil
	}
	return tellChanges(out, l.sub.Take(), l.h, l.subID, l.watched, l.meta)
}

// close frees the stream's slot in the hub.
func (l *listener) close() {
	if l.sub != nil {
		l.sub.Close()
	}
}

// tellChanges sends what p says changed: list_changed when the stream
// asked for tools, and one notifications/resources/updated per subscribed
// URI whose resource changed (each once, in URI order).
func tellChanges(out sender, p subscriptions.Pending, h honoured, subID json.RawMessage, w resources.Watched, meta func() map[string]any) error {
	if p.Tools && h.ToolsListChanged {
		if err := out.send(listChanged(subID)); err != nil {
			return err
		}
	}
	var uris []string
	for _, k := range p.Resources {
		uris = append(uris, w.Keys[k]...)
	}
	if len(uris) == 0 {
		return nil
	}
	slices.Sort(uris)
	m := meta()
	for _, uri := range slices.Compact(uris) {
		b, err := jsonrpc.EncodeNotification(notifyResourceUpdated, map[string]any{"uri": uri, "_meta": m})
		if err != nil {
			return err
		}
		if err := out.send(b); err != nil {
			return err
		}
	}
	return nil
}

// listChangedParams are the params of notifications/tools/list_changed on
// either side of the stream's subscription id.
var listChangedParams = [2][]byte{[]byte(`{"_meta":{"` + MetaSubscriptionID + `":`), []byte(`}}`)}

// listChanged is notifications/tools/list_changed for the stream subID,
// byte for byte what jsonrpc.EncodeNotification makes of it, appended
// instead of encoded: at 10,000 streams the change is written 10,000 times,
// and a stream keeps no copy in between.
func listChanged(subID json.RawMessage) []byte {
	return jsonrpc.AppendNotification(nil, notifyToolsListChanged, listChangedParams[0], subID, listChangedParams[1])
}

// refuseListen is the answer to a listen request the hub would not
// register: over a cap (429 per user, 503 per instance) or during shutdown
// (503), with jsonrpc.CodeTooManySubscriptions; anything else is a fault.
func refuseListen(err error) error {
	switch {
	case errors.Is(err, subscriptions.ErrTooManyForUser):
		return jsonrpc.NewError(jsonrpc.CodeTooManySubscriptions, capReason(err)+"; close one before opening another.", nil)
	case errors.Is(err, subscriptions.ErrTooManyTotal):
		return jsonrpc.Unavailable(jsonrpc.CodeTooManySubscriptions, capReason(err)+"; retry later.")
	case errors.Is(err, subscriptions.ErrClosed):
		return jsonrpc.Unavailable(jsonrpc.CodeTooManySubscriptions, "The server is shutting down; retry on another instance.")
	}
	return fmt.Errorf("subscribe: %w", err)
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

// listenEnd is the graceful final result of a listen request.
func (s *Server) listenEnd(subID json.RawMessage) (any, error) {
	meta, err := encodeMeta(map[string]any{MetaServerInfo: s.info, MetaSubscriptionID: subID})
	if err != nil {
		return nil, fmt.Errorf("encode listen result: %w", err)
	}
	res := listenEnd{resultFields: s.modernFields()}
	res.Meta = meta
	return res, nil
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
