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
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// ToolService lists and calls tools for a caller: every rule about which
// tools exist for whom lives behind it (tools.Service implements it).
type ToolService interface {
	List(ctx context.Context, q tools.ListQuery) (tools.Page, error)
	Call(ctx context.Context, req tools.CallRequest) (*tools.Result, error)
	// Watch returns which tool changes a listener of this scope hears.
	Watch(sc tools.Scope) (func(name string, toolEdition models.Edition) bool, error)
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
	return &Server{
		cfg: cfg, tools: deps.Tools, context: deps.Context, hub: deps.Hub,
		info: info, modernMeta: modernMeta, shutdown: deps.Shutdown,
	}, nil
}

// exchange is one request being served.
type exchange struct {
	c      *gin.Context
	ctx    context.Context
	req    *jsonrpc.Request
	modern bool
	meta   requestMeta
	id     *auth.Identity
	fields *middleware.LogFields
	// name and uri are params.name and params.uri as strings ("" when
	// absent or not a string), decoded once by parseMeta.
	name, uri string
}

// Handle serves a POST to the MCP endpoint (the router answers other
// methods with 405).
func (s *Server) Handle(c *gin.Context) {
	ctx := c.Request.Context()
	fields := middleware.Fields(ctx)
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.Is(err, middleware.ErrBodyTimeout) {
			c.Header("Connection", "close")
			s.writeError(c, jsonrpc.ID{}, http.StatusRequestTimeout,
				jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Request timeout: the request body did not arrive in time", nil))
			return
		}
		if errors.As(err, &mbe) {
			s.writeError(c, jsonrpc.ID{}, http.StatusRequestEntityTooLarge,
				jsonrpc.NewError(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Request body too large: the limit is %d bytes", s.cfg.MaxBodyBytes), nil))
			return
		}
		s.writeError(c, jsonrpc.ID{}, http.StatusBadRequest, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Could not read the request body", nil))
		return
	}
	req, rerr := jsonrpc.Decode(body)
	if rerr != nil {
		var id jsonrpc.ID
		if req != nil {
			id = req.ID
			fields.RPCMethod = req.Method
		}
		s.fail(c, id, rerr)
		return
	}
	fields.RPCMethod = req.Method
	x := &exchange{c: c, ctx: ctx, req: req, id: middleware.IdentityFrom(ctx), fields: fields}
	if perr := x.parseMeta(); perr != nil {
		s.fail(c, req.ID, perr)
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
	var (
		result any
		e      *jsonrpc.Error
	)
	if x.modern {
		result, e = s.serveModern(x)
	} else {
		result, e = s.serveLegacy(x)
	}
	if c.Writer.Written() { // streamed (SSE) responses write themselves
		return
	}
	if e != nil {
		s.fail(c, req.ID, e)
		return
	}
	writeJSON(c, http.StatusOK, req.ID, result)
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

// internalErrorBody answers a response that could not be encoded.
var internalErrorBody = []byte(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`)

// fail writes a JSON-RPC error with its mapped status.
func (s *Server) fail(c *gin.Context, id jsonrpc.ID, e *jsonrpc.Error) {
	s.writeError(c, id, e.Status(), e)
}

func (s *Server) writeError(c *gin.Context, id jsonrpc.ID, status int, e *jsonrpc.Error) {
	middleware.Fields(c.Request.Context()).RPCCode = e.Code
	if e.Code == jsonrpc.CodeInternalError && e.Status() != http.StatusServiceUnavailable {
		e = jsonrpc.Internal()
	}
	e.SetHeaders(c.Writer.Header())
	b, err := jsonrpc.EncodeError(id, e)
	if err != nil {
		b = internalErrorBody
		status = http.StatusInternalServerError
	}
	c.Data(status, "application/json", b)
}

func writeJSON(c *gin.Context, status int, id jsonrpc.ID, result any) {
	b, err := jsonrpc.EncodeResult(id, result)
	if err != nil {
		c.Data(http.StatusInternalServerError, "application/json", internalErrorBody)
		return
	}
	c.Data(status, "application/json", b)
}

// internal logs err once (where it stops travelling) and returns -32603.
// A store outage is answered 503 and not logged here: the store logs it,
// once per interval, however many requests it fails.
func (s *Server) internal(x *exchange, what string, err error) *jsonrpc.Error {
	if errors.Is(err, models.ErrStoreUnavailable) {
		return jsonrpc.Unavailable()
	}
	s.cfg.Logger.ErrorContext(x.ctx, what, "error", err, "request_id", x.fields.RequestID)
	return jsonrpc.Internal()
}
