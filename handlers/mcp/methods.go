package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// The method table: every JSON-RPC method glmcp knows, in the go-sdk's
// shape (mcp/server.go's serverMethodInfos). A row says which eras serve
// the method, the server capability it belongs to, whether it streams, and
// how its params are decoded and served. The dispatcher (Server.dispatch),
// the decoder's interned names and the metrics' method labels all come
// from it; nothing else lists methods.

// eraSet is the eras a method is served in.
type eraSet uint8

const (
	legacyOnly eraSet = 1 << iota
	modernOnly
	bothEras = legacyOnly | modernOnly
)

// methodFlags describe a method's answer.
type methodFlags uint8

const (
	// notification: a client notification, accepted with 202 and never
	// answered (any notification is; the row only names it).
	notification methodFlags = 1 << iota
	// streams: always answered with an event stream that stays open
	// (subscriptions/listen).
	streams
	// mayStream: the answer becomes an event stream at the method's first
	// notification (tools/call: progress and log messages).
	mayStream
)

// method is one row of the method table.
type method struct {
	eras  eraSet
	flags methodFlags
	// capability is the server capability (a key of capabilities()) the
	// method belongs to: where the server does not declare it, the method
	// does not exist (-32601). "" for methods of the lifecycle.
	capability string
	// mirror names the params member the Modern Mcp-Name header must
	// equal ("name", "uri"); "" for none.
	mirror string
	// newParams returns a fresh value to decode the params into, once per
	// request; serve answers the request with it. Both nil for
	// notifications.
	newParams func() params
	serve     func(s *Server, x *exchange, p params) (any, error)
}

// params are a method's typed params. Every one embeds metaParams, so
// _meta is decoded with them, in the same pass.
type params interface {
	base() *metaParams
}

// metaParams holds params._meta, which every request may carry. Its keys
// are matched exactly (a map, not struct tags: encoding/json matches
// field names case-insensitively).
type metaParams struct {
	Meta map[string]json.RawMessage `json:"_meta"`
}

func (m *metaParams) base() *metaParams { return m }

// named is implemented by params whose member the Mcp-Name header mirrors.
type named interface {
	// mcpName is the mirrored member as a string ("" when absent or not
	// a string).
	mcpName() string
}

// with returns m with flags and the Mcp-Name mirror set.
func (m *method) with(flags methodFlags, mirror string) *method {
	m.flags, m.mirror = m.flags|flags, mirror
	return m
}

// noParams are the params of a method that takes none but _meta.
type noParams struct {
	metaParams
}

// Method names.
const (
	MethodInitialize        = "initialize"
	MethodPing              = "ping"
	MethodDiscover          = "server/discover"
	MethodListTools         = "tools/list"
	MethodCallTool          = "tools/call"
	MethodListen            = "subscriptions/listen"
	MethodListPrompts       = "prompts/list"
	MethodGetPrompt         = "prompts/get"
	MethodListResources     = "resources/list"
	MethodListTemplates     = "resources/templates/list"
	MethodReadResource      = "resources/read"
	MethodSubscribeResource = "resources/subscribe"
	MethodUnsubscribe       = "resources/unsubscribe"
	MethodComplete          = "completion/complete"
	MethodSetLogLevel       = "logging/setLevel"
)

// methods is the method table.
var methods = map[string]*method{
	MethodInitialize: row(legacyOnly, "", (*Server).initialize),
	MethodPing:       row(legacyOnly, "", (*Server).ping),
	MethodDiscover:   row(modernOnly, "", (*Server).discover),

	MethodListTools: row(bothEras, "tools", (*Server).listTools),
	MethodCallTool:  row(bothEras, "tools", (*Server).callTool).with(mayStream, "name"),
	MethodListen:    row(modernOnly, "", (*Server).listen).with(streams, ""),

	MethodListPrompts:   row(bothEras, "prompts", (*Server).listPrompts),
	MethodGetPrompt:     row(bothEras, "prompts", (*Server).getPrompt).with(0, "name"),
	MethodListResources: row(bothEras, "resources", (*Server).listResources),
	MethodListTemplates: row(bothEras, "resources", (*Server).listTemplates),
	MethodReadResource:  row(bothEras, "resources", (*Server).readResource).with(0, "uri"),
	// 2025 revisions only: 2026-07-28 subscribes on subscriptions/listen.
	MethodSubscribeResource: row(legacyOnly, "resources", (*Server).subscribeResource),
	MethodUnsubscribe:       row(legacyOnly, "resources", (*Server).subscribeResource),
	MethodComplete:          row(bothEras, "completions", (*Server).complete),
	// Only where the server declares logging (Config.Logging).
	MethodSetLogLevel: row(legacyOnly, "logging", (*Server).setLogLevel),

	"notifications/initialized":        {eras: bothEras, flags: notification},
	"notifications/cancelled":          {eras: bothEras, flags: notification},
	"notifications/progress":           {eras: bothEras, flags: notification},
	"notifications/roots/list_changed": {eras: bothEras, flags: notification},
}

// MethodNames is every method the table knows, sorted: the decoder interns
// them and the metrics label requests by them (any other is "other").
func MethodNames() []string {
	return slices.Sorted(maps.Keys(methods))
}

// servedIn returns the rows this server serves in an era: the row's eras
// include it and the server declares its capability there
// (capabilities()). A method missing from it does not exist (-32601).
func (s *Server) servedIn(modern bool) map[string]*method {
	era, declared := legacyOnly, s.capabilities(modern, false)
	if modern {
		era = modernOnly
	}
	out := make(map[string]*method, len(methods))
	for name, m := range methods {
		if m.serve == nil || m.eras&era == 0 {
			continue
		}
		if _, ok := declared[m.capability]; m.capability != "" && !ok {
			continue
		}
		out[name] = m
	}
	return out
}

// writeTimeout bounds one write on the method's event stream (see
// eventStream): a long-lived stream waits twice the keep-alive interval,
// at least 10 s; a tools/call stream 30 s.
func (s *Server) writeTimeout(m *method) time.Duration {
	if m != nil && m.flags&streams != 0 {
		return max(2*s.cfg.KeepAlive, 10*time.Second)
	}
	return progressWriteTimeout
}
