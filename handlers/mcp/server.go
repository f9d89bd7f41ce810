package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/catalog"
	"gitlab.com/glmcp/glmcp/services/resources"
	"gitlab.com/glmcp/glmcp/services/safety"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// ToolService lists and calls tools for a caller: every rule about which
// tools exist for whom lives behind it (tools.Service implements it).
type ToolService interface {
	List(ctx context.Context, q tools.ListQuery) (tools.Page, error)
	// Call runs one tools/call down the service's chain; the request's
	// Transport adds the handler's own rules to it.
	Call(ctx context.Context, req tools.CallRequest) (*tools.Result, error)
	// Watch returns which tool changes a listener of this scope hears.
	Watch(sc models.Scope) (func(name string, toolEdition models.Edition) bool, error)
}

// Config configures one route group's endpoint.
type Config struct {
	Edition       models.Edition
	ServerName    string
	ServerVersion string
	Instructions  string
	// ListTTL is the ttlMs hint on Modern tools/list results.
	ListTTL time.Duration
	// DiscoverTTL is the ttlMs hint on server/discover results.
	DiscoverTTL  time.Duration
	MaxBodyBytes int64
	// KeepAlive is the interval of SSE comment keep-alives on listen streams.
	KeepAlive time.Duration
	// Scopes and MetadataURL are used for step-up challenges at call time.
	Scopes      auth.GroupScopes
	MetadataURL string
	Logger      *slog.Logger
	// Logging declares the logging capability (tools may send log
	// messages) and serves Legacy logging/setLevel. Off, the Legacy method
	// does not exist and only Modern requests naming a _meta logLevel get
	// messages.
	Logging bool
	// Safety are the instance's safety switches; a client's headers can
	// turn each on, never off (doc/security.md).
	Safety Safety
}

// Safety are the instance's safety switches (GLMCP_READ_ONLY,
// GLMCP_LOCKDOWN). The defences that need no request header (sanitised
// text, the audit event) are links of the tool service's chain.
type Safety struct {
	ReadOnly, Lockdown bool
}

// Server serves one route group.
type Server struct {
	cfg     Config
	tools   ToolService
	context ContextService
	hub     *subscriptions.Hub
	info    Implementation
	// modernMeta is the encoded _meta of every Modern result
	// ({serverInfo}), built once.
	modernMeta json.RawMessage
	shutdown   <-chan struct{}
	decoder    *jsonrpc.Decoder
	// served are the rows of the methods this server serves, by era.
	served map[jsonrpc.Era]map[string]*method
}

// Deps are the services a Server uses. Hub may be nil (no listen support).
type Deps struct {
	Tools ToolService
	// Context serves resources, prompts and completions (nil: empty
	// lists).
	Context ContextService
	Hub     *subscriptions.Hub
	// Shutdown is closed when the server begins a graceful shutdown; open
	// listen streams then end with their final result.
	Shutdown <-chan struct{}
}

// New returns a Server.
func New(cfg Config, deps Deps) (*Server, error) {
	if deps.Tools == nil {
		return nil, errors.New("new mcp server: the tool service is required")
	}
	if cfg.Edition != models.EditionCE && cfg.Edition != models.EditionEE {
		return nil, fmt.Errorf("new mcp server: unknown edition %q", cfg.Edition)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 25 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	info := Implementation{Name: cfg.ServerName, Version: cfg.ServerVersion}
	modernMeta, err := encodeMeta(map[string]any{MetaServerInfo: info})
	if err != nil {
		return nil, fmt.Errorf("new mcp server: encode server info: %w", err)
	}
	s := &Server{
		cfg: cfg, tools: deps.Tools, context: deps.Context, hub: deps.Hub,
		info: info, modernMeta: modernMeta, shutdown: deps.Shutdown,
		decoder: jsonrpc.NewDecoder(MethodNames()),
	}
	s.served = map[jsonrpc.Era]map[string]*method{
		jsonrpc.EraLegacy: s.servedIn(false),
		jsonrpc.EraModern: s.servedIn(true),
	}
	return s, nil
}

// exchange is one request being served.
type exchange struct {
	c      *gin.Context
	ctx    context.Context
	req    *jsonrpc.Request
	modern bool
	meta   requestMeta
	id     *models.Identity
	fields *middleware.LogFields
	// params are the request's params, decoded once by readParams into
	// its method's type; paramsErr is set when they did not fit it.
	params    params
	paramsErr *jsonrpc.Error
	// name is the params member Mcp-Name mirrors, as a string ("" when
	// absent or not a string).
	name string
	// stream is the response's event stream, when the method opened one.
	stream *eventStream
	// method is the method's row (nil: a method glmcp does not know).
	method *method
	// streamTimeout bounds one write on the event stream (see events).
	streamTimeout time.Duration
	// call is the tools/call chain's Transport (callTool), kept here so
	// a call allocates none of its own; chained is set once the call has
	// gone down the chain (callTool, refuseCall).
	call    callTransport
	chained bool
	// instance are the instance's safety switches (Config.Safety).
	instance Safety
}

// era is the column of the status table the request is answered from.
func (x *exchange) era() jsonrpc.Era {
	if x.modern {
		return jsonrpc.EraModern
	}
	return jsonrpc.EraLegacy
}

// scope is the caller and filter headers of this request on a group of
// edition.
func (x *exchange) scope(edition models.Edition) models.Scope {
	h := x.c.Request.Header
	return models.Scope{Edition: edition, Identity: x.id, Headers: models.Headers{
		Tools:    strings.Join(h.Values(catalog.HeaderEnabledTools), ","),
		Toolsets: strings.Join(h.Values(catalog.HeaderEnabledToolsets), ","),
		Prefix:   h.Get(catalog.HeaderToolNamePrefix),
	},
		// SAFETY HOOK: the read-only and lockdown switches, the instance's
		// setting an upper bound (doc/security.md).
		ReadOnlyMode: safety.On(x.instance.ReadOnly, h, safety.HeaderReadOnly),
		Lockdown:     safety.On(x.instance.Lockdown, h, safety.HeaderLockdown),
	}
}

// Handle serves a POST to the MCP endpoint (the router answers other
// methods with 405).
func (s *Server) Handle(c *gin.Context) {
	ctx := c.Request.Context()
	fields := middleware.Fields(ctx)
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		// Refused before it is read, like the middleware's refusals:
		// handlers.RenderRefusals writes the error, without id.
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, middleware.ErrBodyTimeout):
			middleware.Refuse(c, jsonrpc.BodyTimeout())
		case errors.As(err, &mbe):
			middleware.Refuse(c, jsonrpc.BodyTooLarge(s.cfg.MaxBodyBytes))
		default:
			middleware.Refuse(c, jsonrpc.InvalidRequest("Could not read the request body"))
		}
		return
	}
	req, rerr := s.decoder.Decode(body)
	if rerr != nil {
		var id jsonrpc.ID
		if req != nil {
			id = req.ID
			fields.RPCMethod = req.Method
		}
		fields.RPCCode, fields.RPCClass = rerr.Code, rerr.Class(jsonrpc.EraUnknown)
		jsonrpc.WriteError(c.Writer, jsonrpc.EraUnknown, id, rerr)
		return
	}
	fields.RPCMethod = req.Method
	m := methods[req.Method]
	x := &exchange{c: c, ctx: ctx, req: req, id: middleware.IdentityFrom(ctx), fields: fields,
		method: m, streamTimeout: s.writeTimeout(m), instance: s.cfg.Safety}
	if perr := x.readParams(m); perr != nil {
		s.answer(x, nil, s.refuseCall(x, perr))
		return
	}
	if x.modern {
		fields.Era = "modern"
	} else {
		fields.Era = "legacy"
	}
	if req.IsNotification() {
		// Notifications carry no reply; accept them (notifications/initialized,
		// notifications/cancelled, …). Stateless: nothing to record.
		c.Status(http.StatusAccepted)
		return
	}
	result, err := s.dispatch(x)
	if err != nil {
		err = s.refuseCall(x, err)
	}
	s.answer(x, result, err)
}

// dispatch serves a request from the method table: the Modern checks
// first, then the method must exist in the request's era (and the server
// declare its capability), its params must fit, and its row serves it.
// The server holds no session: initialize is not required before other
// methods, and Mcp-Session-Id is neither minted nor read.
func (s *Server) dispatch(x *exchange) (any, error) {
	if x.modern {
		if e := s.validateModern(x, x.method); e != nil {
			return nil, e
		}
	}
	m := s.served[x.era()][x.req.Method]
	if m == nil {
		return nil, jsonrpc.MethodNotFound(x.req.Method)
	}
	if x.paramsErr != nil {
		return nil, x.paramsErr
	}
	return m.serve(s, x, x.params)
}

// row builds a method row whose serve takes its params as *P. It lives
// beside dispatch: its adapter is the hop from dispatch to the method.
func row[P any, PP interface {
	*P
	params
}](eras eraSet, capability string, serve func(*Server, *exchange, PP) (any, error)) *method {
	return &method{
		eras:       eras,
		capability: capability,
		newParams:  func() params { return PP(new(P)) },
		serve: func(s *Server, x *exchange, p params) (any, error) {
			return serve(s, x, p.(PP))
		},
	}
}

// answer is the one writer of the MCP endpoint's responses to a request it
// read: a method's result, or its error translated by rpcError, as JSON
// with the status the table gives it in the request's era, or — when the
// method turned the response into an event stream — as the stream's last
// event. A write tool refused to a read_api token is answered with the
// authentication middleware's 403 step-up challenge. Nothing is written
// once the client has gone away or the stream has broken.
func (s *Server) answer(x *exchange, result any, err error) {
	if x.stream != nil {
		defer x.stream.release()
	}
	if err != nil && (x.ctx.Err() != nil || errors.Is(err, errStreamClosed)) {
		// The client went away: nothing to answer. A tool call says so in
		// the log and the metrics; the status alone (200 once a stream
		// started) would count it as answered.
		if x.req.Method == MethodCallTool {
			x.fields.Outcome, x.fields.ErrorClass = middleware.OutcomeCanceled, "client_closed"
		}
		return
	}
	var ro *tools.ReadOnlyError
	if errors.As(err, &ro) {
		middleware.WriteAuthError(x.c, s.cfg.MetadataURL, &auth.Error{
			Kind: auth.InsufficientScope, Presented: true, Scope: s.cfg.Scopes.Needed,
			Reason: fmt.Sprintf("The tool %s writes data; the token's read_api scope allows read-only tools. A token with the %s scope is needed.", ro.Tool, s.cfg.Scopes.Needed),
		})
		return
	}
	var e *jsonrpc.Error
	if err != nil {
		e = s.rpcError(x, err)
		x.fields.RPCCode, x.fields.RPCClass = e.Code, e.Class(x.era())
		if x.req.Method == MethodCallTool {
			x.fields.Outcome, x.fields.ErrorClass = middleware.OutcomeProtocolError, x.fields.RPCClass
		}
	}
	if x.stream != nil && x.stream.started() {
		x.stream.finish(result, e)
		return
	}
	if e != nil {
		jsonrpc.WriteError(x.c.Writer, x.era(), x.req.ID, e)
		return
	}
	if err := jsonrpc.WriteResult(x.c.Writer, x.req.ID, result); err != nil {
		x.fields.RPCCode, x.fields.RPCClass = jsonrpc.CodeInternalError, jsonrpc.Internal().Class(jsonrpc.EraUnknown)
		s.cfg.Logger.ErrorContext(x.ctx, "encode result", "error", err, "method", x.req.Method, "request_id", x.fields.RequestID)
	}
}

// rpcError translates what a method returned into the JSON-RPC error the
// client sees: the caller's mistakes (unknown tool, bad input, a resource
// or prompt not found) are -32602, a missing client capability -32021, a
// store outage -32603 with 503; anything else is logged here, where it
// stops travelling, and answered -32603 without its text.
func (s *Server) rpcError(x *exchange, err error) *jsonrpc.Error {
	var (
		rpc     *jsonrpc.Error
		unknown *tools.UnknownToolError
		caps    *tools.MissingCapabilityError
		nf      *resources.NotFoundError
		invalid *resources.InvalidError
		toolset *catalog.UnknownToolsetsError
	)
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &nf):
		var data any
		if nf.Kind == "Resource" { // SEP-2164: data.uri
			data = map[string]any{"uri": truncate(nf.Name, 500)}
		}
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, nf.Error(), data)
	case errors.As(err, &invalid):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, invalid.Error(), nil)
	case errors.As(err, &unknown):
		// GitLab's text in GitLab's place (data.params), and in the
		// message too, which is all most clients show.
		msg := "Tool '" + truncate(unknown.Name, 200) + "' not found."
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, msg,
			map[string]any{"params": msg, "name": truncate(unknown.Name, 200)})
	case errors.As(err, &toolset):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, toolset.Error(), map[string]any{"params": toolset.Error()})
	case errors.As(err, &caps):
		required := make(map[string]struct{}, len(caps.Required))
		for _, c := range caps.Required {
			required[c] = struct{}{}
		}
		return jsonrpc.NewError(jsonrpc.CodeMissingRequiredClientCapability, caps.Error(),
			map[string]any{"requiredCapabilities": required})
	case errors.Is(err, models.ErrInvalidInput):
		return jsonrpc.InvalidParams("%s", inputMessage(err))
	case errors.Is(err, models.ErrStoreUnavailable):
		return jsonrpc.StoreUnavailable() // the store logs the outage, once per interval
	}
	s.cfg.Logger.ErrorContext(x.ctx, x.req.Method, "error", err, "request_id", x.fields.RequestID)
	return jsonrpc.Internal()
}

// inputMessage is the client-facing text of an error wrapping
// models.ErrInvalidInput: the message without the sentinel's own words,
// or a fixed text when the database driver wrote part of it.
func inputMessage(err error) string {
	if de := (*models.DatabaseError)(nil); errors.As(err, &de) {
		return "the data store refused the input; check the arguments"
	}
	return strings.TrimSuffix(err.Error(), ": "+models.ErrInvalidInput.Error())
}

// encodeMeta encodes a result's _meta without HTML escaping; the encoder
// of the whole result applies its own escaping to the embedded bytes.
func encodeMeta(meta map[string]any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(meta); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
