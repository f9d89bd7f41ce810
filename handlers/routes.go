package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/handlers/jsonrpc"
	"gitlab.com/glmcp/glmcp/handlers/mcp"
	"gitlab.com/glmcp/glmcp/handlers/wellknown"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
)

// Route group paths.
const (
	CEPath = "/api/v4/mcp"
	EEPath = "/api/v4/orbit/mcp"
)

// Group is one MCP route group.
type Group struct {
	Server *mcp.Server
	Auth   middleware.AuthConfig
}

// Deps is everything the router needs.
type Deps struct {
	Logger *slog.Logger
	// Ready reports whether the store is reachable and migrated.
	Ready func(ctx context.Context) error
	// RepositoriesReady reports whether the repositories' directory can
	// be written (nil: not checked).
	RepositoriesReady func(ctx context.Context) error
	CE                Group
	EE                *Group // nil unless the instance runs the EE edition
	Origin            middleware.OriginPolicy
	// Limiter is nil when rate limiting is off.
	Limiter *ratelimit.Limiter
	// TrustedProxies are the proxies (IPs or CIDRs) whose X-Forwarded-For
	// and X-Real-IP headers are believed; nil or empty trusts none, so the
	// client address is the peer address and cannot be spoofed.
	TrustedProxies []string
	WellKnown      wellknown.Config
	// Metrics records every request and serves /metrics (nil: neither).
	Metrics *middleware.Metrics
	// BodyTimeout is the time a client has to send its request body;
	// MaxUserRequests caps a user's requests whose body is still arriving.
	BodyTimeout     time.Duration
	MaxUserRequests int
	// MaxAddressRequests caps one client address's requests whose body is
	// still arriving.
	MaxAddressRequests int
	// MonitoringAllowlist are the IPs and CIDRs that may read /metrics;
	// others get 404.
	MonitoringAllowlist []string
	// RequestContext, when set, derives every MCP request's context before
	// authentication (the embedded store's request marks:
	// store.WithRequestMarks).
	RequestContext func(context.Context) context.Context
}

// NewRouter returns the complete HTTP handler.
func NewRouter(d Deps) *gin.Engine {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	r := gin.New()
	r.HandleMethodNotAllowed = false
	// gin trusts every proxy by default: any client could pick its own
	// address with X-Forwarded-For and escape the per-address rate limit.
	if err := r.SetTrustedProxies(d.TrustedProxies); err != nil {
		// app.Config.Validate refuses malformed entries first; should one
		// get here, trusting no proxy is the safe reading.
		d.Logger.Error("trusted proxies: trusting none", "error", err)
		_ = r.SetTrustedProxies(nil)
	}
	// BodyDeadline first: it needs the server's own ResponseWriter.
	// RenderRefusals writes what the middleware refused inside the access
	// log and the metrics, so both see the status it writes, and outside
	// Recovery, so a panic's refusal is written too (and counted).
	chain := []gin.HandlerFunc{middleware.BodyDeadline(d.BodyTimeout), middleware.RequestLogger(d.Logger)}
	if d.Metrics != nil {
		chain = append(chain, d.Metrics.Record())
	}
	r.Use(append(chain, RenderRefusals, middleware.Recovery(d.Logger))...)
	if d.Metrics != nil {
		r.GET("/metrics", middleware.AllowClients(d.MonitoringAllowlist), gin.WrapH(d.Metrics.Handler()))
	}

	r.GET("/-/liveness", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/-/readiness", func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
		defer cancel()
		// Each check says "ok" or "failed", never why: the reason (a
		// path, the database's words) goes to the log.
		checks, ok := gin.H{"database": "ok"}, true
		if err := d.Ready(ctx); err != nil {
			d.Logger.WarnContext(ctx, "readiness", "check", "database", "error", err)
			checks["database"], ok = "failed", false
		}
		if d.RepositoriesReady != nil {
			checks["repositories"] = "ok"
			if err := d.RepositoriesReady(ctx); err != nil {
				d.Logger.WarnContext(ctx, "readiness", "check", "repositories", "error", err)
				checks["repositories"], ok = "failed", false
			}
		}
		if !ok {
			c.JSON(http.StatusServiceUnavailable, gin.H{"status": "failed", "checks": checks})
			return
		}
		c.JSON(http.StatusOK, gin.H{"status": "ok", "checks": checks})
	})
	wellknown.Register(r, d.WellKnown)

	mount(r, CEPath, d, d.CE)
	if d.EE != nil {
		mount(r, EEPath, d, *d.EE)
	}
	return r
}

// mount serves one group on path for every HTTP method: the MCP handler
// itself answers non-POST methods with 405.
func mount(r *gin.Engine, path string, d Deps, g Group) {
	chain := []gin.HandlerFunc{middleware.CheckOrigin(d.Origin), postOnly}
	if derive := d.RequestContext; derive != nil {
		chain = append(chain, func(c *gin.Context) { c.Request = c.Request.WithContext(derive(c.Request.Context())) })
	}
	if d.Limiter != nil {
		chain = append(chain, ratelimit.Middleware(d.Limiter, anonymousKey(path)))
	}
	chain = append(chain, middleware.RequireAuth(g.Auth),
		middleware.OpenRequests(d.MaxUserRequests), middleware.OpenRequestsPerAddress(d.MaxAddressRequests))
	if d.Limiter != nil {
		chain = append(chain, ratelimit.MiddlewareLimits(d.Limiter, userKey(path)))
	}
	chain = append(chain, g.Server.Handle)
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodPatch, http.MethodOptions} {
		r.Handle(m, path, chain...)
	}
}

// postOnly answers every method but POST with 405 and Allow: POST, before
// authentication: the endpoint has no GET stream and no sessions to DELETE.
func postOnly(c *gin.Context) {
	if c.Request.Method == http.MethodPost {
		return
	}
	middleware.Refuse(c, jsonrpc.MethodNotAllowed())
}

// anonymousKey limits requests that carry no credential by client address;
// requests with a credential pass: authentication judges them, a failed one
// spends the address's failed-auth budget, a good one is limited per user.
// middleware.CredentialOf decides, for both.
func anonymousKey(path string) func(*gin.Context) string {
	return func(c *gin.Context) string {
		if middleware.CredentialOf(c.Request).Presented() {
			return ""
		}
		return "ip:" + c.ClientIP() + ":" + path
	}
}

// userKey limits an authenticated user per route group, under the user's
// own windows when an administrator set them (glmcp users set-rate-limit).
func userKey(path string) func(*gin.Context) (string, ratelimit.Limits) {
	return func(c *gin.Context) (string, ratelimit.Limits) {
		id := middleware.IdentityFrom(c.Request.Context())
		if id == nil || id.User == nil {
			return "", nil
		}
		return "user:" + strconv.FormatInt(id.User.ID, 10) + ":" + path, userLimits(id.User)
	}
}

// userLimits returns u's own windows (glmcp users set-rate-limit), or none
// when the server's limit applies.
func userLimits(u *models.User) ratelimit.Limits {
	if u.RateLimitWindows != "" {
		if ls, on, err := ratelimit.ParseLimits(u.RateLimitWindows); err == nil && on {
			return ls
		}
	}
	if u.RateLimitRequests > 0 && u.RateLimitPeriodSeconds > 0 {
		return ratelimit.Limits{{Requests: u.RateLimitRequests, Per: time.Duration(u.RateLimitPeriodSeconds) * time.Second}}
	}
	return nil
}
