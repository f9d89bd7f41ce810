package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/handlers/mcp"
	"gitlab.com/glmcp/glmcp/handlers/wellknown"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/audit"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
	"gitlab.com/glmcp/glmcp/services/redislimit"
	"gitlab.com/glmcp/glmcp/services/resources"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// Version is the server version, set at build time with
// -ldflags "-X gitlab.com/glmcp/glmcp/app.Version=…".
var Version = "0.1.0-dev"

// serverInstructions tell a model how to use this server.
const serverInstructions = "This server exposes a GitLab instance's projects, issues, merge requests, " +
	"pipelines, notes and repository files as tools. Projects are named by numeric id or full path " +
	"(group/project). Objects the user may not see read as not found."

// groupSpec is one MCP route group: where it is served, the name its
// metadata gives (resource_name) and the one its serverInfo gives, the
// scopes it accepts and those its metadata advertises (the minimal set for
// basic use, the MCP authorization spec's reading of scopes_supported).
type groupSpec struct {
	edition        models.Edition
	path, name     string
	serverInfoName string
	scopes         auth.GroupScopes
	advertised     []string
}

// The two route groups (doc/endpoint.md, "Route groups").
var (
	// GitLab's own serverInfo.name on the endpoint GitLab serves.
	ceGroup = groupSpec{edition: models.EditionCE, path: handlers.CEPath, name: "GitLab MCP Server",
		serverInfoName: "Official GitLab MCP Server", scopes: auth.CEScopes, advertised: []string{models.ScopeMCP}}
	eeGroup = groupSpec{edition: models.EditionEE, path: handlers.EEPath, name: "GitLab Orbit MCP Server",
		serverInfoName: "GitLab Orbit MCP Server", scopes: auth.EEScopes, advertised: []string{models.ScopeMCPOrbit, models.ScopeMCP}}
)

// Server is the assembled application: the HTTP handler and the background
// workers behind it.
type Server struct {
	handler  http.Handler
	hub      *subscriptions.Hub
	tools    *tools.Service
	authn    *auth.Authenticator
	idCache  *auth.IdentityCache
	views    *store.IssueViewCache
	listener *subscriptions.PGListener
	redis    *redislimit.Client // nil: limits counted per instance
	audit    *audit.Writer      // the audit trail of tool calls
	poll     changeSource       // embedded store: catalog and resource change poller
	logger   *slog.Logger
	shutdown chan struct{}
	stopBG   context.CancelFunc
	wg       sync.WaitGroup
	once     sync.Once
}

// New builds every service over env and the router. Call Start to run the
// background workers and Shutdown to end them.
func New(ctx context.Context, cfg *Config, e *Env, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	fx := cfg.Fixtures
	if fx == nil {
		fx = &Fixtures{}
	}
	w := &Server{logger: logger, shutdown: make(chan struct{})}
	w.audit = audit.New(e.Store.Audit, audit.Options{Retention: cfg.AuditRetentionDuration(), Logger: logger})
	fixtures, err := w.fixtureTools(fx, e)
	if err != nil {
		return nil, err
	}
	var record func(models.AuditEvent)
	if cfg.Audit {
		record = w.audit.Record
	}
	ts, err := newToolService(cfg, e, logger, fixtures, true, record)
	if err != nil {
		return nil, err
	}
	if err := ts.Sync(ctx); err != nil {
		return nil, err
	}
	w.tools = ts
	hubOpts := subscriptions.Options{
		MaxPerUser: cfg.MaxUserStreams, MaxTotal: cfg.MaxStreams, Logger: logger,
		// A change must be visible to a client that re-lists on the
		// notification: drop the cached catalog before anyone is told.
		BeforePublish: func(subscriptions.Event) { ts.Invalidate() },
	}
	// Limits shared by every instance (GLMCP_REDIS_URL): the rate limits,
	// the failed-authentication ban and the per-user stream cap.
	var limiterOpts []ratelimit.Option
	if cfg.RedisURL != "" {
		w.redis, err = redislimit.New(redislimit.Config{
			URL: cfg.RedisURL, PasswordFile: cfg.RedisPasswordFile, Prefix: redisPrefix(cfg, e.Secret),
			Timeout: cfg.RedisTimeout, Lease: cfg.RedisStreamLease, Logger: logger,
		})
		if err != nil {
			return nil, err
		}
		hubOpts.Slots = w.redis
		limiterOpts = append(limiterOpts, ratelimit.Redis(w.redis))
	}
	w.hub = subscriptions.NewHub(hubOpts)
	if e.Embedded {
		w.poll = changeStore{e.Store.Tools, e.Store.Resources}
	} else {
		w.listener = subscriptions.NewPGListener(e.DSN, w.hub, logger)
		w.listener.Handle(subscriptions.ResourceChannel, func(key string) {
			w.hub.Publish(subscriptions.Event{Kind: subscriptions.KindResource, Resource: key})
		})
	}
	// Refs live in git, not in the database: glmcp announces its own ref
	// moves (a push with plain git is not seen; see doc/resources.md).
	if e.Repositories != nil {
		announcer := newRefAnnouncer(e.Store, logger)
		e.Repositories.OnRefUpdate(func(projectID int64, ref string) {
			// The code index catches up in the background; a search checks
			// the head anyway (a push with plain git is seen there).
			if e.CodeIndex != nil {
				e.CodeIndex.Refresh(projectID)
			}
			announcer.announce(subscriptions.ResourceKey('r', projectID, ref))
		})
	}

	// Merges a crash left between git and the store are finished first.
	if e.Repositories != nil {
		ids, err := e.Store.Projects.ProjectIDs(ctx)
		if err != nil {
			return nil, err
		}
		if n, err := gitlab.SettleMerges(ctx, gitlabDeps(cfg, e), ids); err != nil {
			logger.Error("finish merges interrupted by a crash", "error", err)
		} else if n > 0 {
			logger.Info("finished merges interrupted by a crash", "merge_requests", n)
		}
	}

	ctxs, err := resources.New(ts, resourceStore{e.Store.Resources, e.Store.Projects}, resources.Options{
		BaseURL: cfg.PublicURL, Secret: []byte(e.Secret), Extra: fx.Content,
		Patches: gitlab.NewPatches(gitlabDeps(cfg, e)),
	})
	if err != nil {
		return nil, err
	}

	// Credentials seen before are answered from memory; the database
	// announces every change that could alter them (migration
	// 20261201060000): NOTIFY on the LISTEN connection, or on the embedded
	// store a version counter read before each use.
	// get_issue's reads too, kept true the same way (migrations
	// 20261201180000 and, for the embedded store's marks, 20261201200000).
	if e.Embedded {
		w.idCache = auth.NewVersionedIdentityCache(0, e.Store.Users.IdentityVersion)
		w.views = store.NewVersionedIssueViewCache(0, 0)
	} else {
		w.idCache = auth.NewNotifiedIdentityCache(0)
		w.listener.Handle(auth.IdentityChannel, w.idCache.Invalidate)
		w.listener.OnState(w.idCache.SetLive)
		w.views = store.NewIssueViewCache(0, 0)
		w.listener.Handle(store.IssueViewChannel, w.views.Invalidate)
		w.listener.OnState(w.views.SetLive)
	}
	e.Store.Issues.UseIssueViewCache(w.views)
	authn, err := auth.NewAuthenticator(e.Store.Users, e.Secret, nil, logger,
		auth.WithTokenFormat(e.Tokens), auth.WithOAuthTokens(e.Store.Users), auth.WithIdentityCache(w.idCache))
	if err != nil {
		return nil, err
	}
	w.authn = authn
	jwt, err := newOAuth(ctx, cfg, e, logger)
	if err != nil {
		return nil, err
	}

	deps := handlers.Deps{
		Logger: logger,
		Ready:  e.Store.Ping,
		Origin: middleware.OriginPolicy{
			AllowedOrigins: append([]string{originOf(cfg.PublicURL)}, cfg.AllowedOrigins...),
			AllowedHosts:   append([]string{hostOf(cfg.PublicURL)}, cfg.AllowedHosts...),
			LoopbackOnly:   cfg.ListensOnLoopback(),
		},
		TrustedProxies:      cfg.TrustedProxies,
		BodyTimeout:         cfg.BodyTimeout,
		MaxUserRequests:     cfg.MaxUserRequests,
		MaxAddressRequests:  cfg.MaxAddressRequests,
		MonitoringAllowlist: cfg.MonitoringAllowlist,
		WellKnown:           wellknown.Config{PublicURL: cfg.PublicURL, AuthorizationServers: cfg.OAuthAuthorizationServers},
	}
	if e.Repositories != nil {
		deps.RepositoriesReady = e.Repositories.CheckWritable
	}
	if e.Embedded {
		// The identity version's statement reads the issue view sequence
		// for the request's get_issue too: one statement per request.
		deps.RequestContext = store.WithRequestMarks
	}
	if cfg.rateLimitEnabled {
		deps.Limiter = ratelimit.NewLimiters(cfg.rateLimit, nil, limiterOpts...)
	}
	var failures *ratelimit.Limiter // shared by both groups: one budget per address
	if cfg.failLimitEnabled {
		failures = ratelimit.NewLimiter(cfg.failLimit, nil, limiterOpts...)
	}
	// metadataURL is what challenges name: nothing when no authorization
	// server is configured, so clients do not try to sign in.
	metadataURL := func(path string) string {
		if !cfg.AuthorizationServerConfigured() {
			return ""
		}
		return wellknown.MetadataURL(cfg.PublicURL, path)
	}
	group := func(g groupSpec) (handlers.Group, error) {
		if !cfg.AuthorizationServerConfigured() {
			// Nobody can sign in for a scope: the scope a refusal names is
			// the one a person creates a token with, and mcp serves both
			// groups (mcp_orbit is what Orbit's OAuth clients ask for).
			g.scopes.Needed = models.ScopeMCP
		}
		srv, err := mcp.New(mcp.Config{
			Edition: g.edition, ServerName: g.serverInfoName, ServerVersion: Version, Instructions: serverInstructions,
			ListTTL: cfg.ListTTL, DiscoverTTL: cfg.DiscoverTTL, MaxBodyBytes: cfg.MaxBodyBytes,
			KeepAlive: cfg.KeepAlive, Scopes: g.scopes,
			MetadataURL: metadataURL(g.path), Logger: logger,
			Logging: fx.Logging,
			Safety:  mcp.Safety{ReadOnly: cfg.ReadOnly, Lockdown: cfg.Lockdown},
		}, mcp.Deps{Tools: ts, Context: ctxs, Hub: w.hub, Shutdown: w.shutdown})
		if err != nil {
			return handlers.Group{}, err
		}
		deps.WellKnown.Resources = append(deps.WellKnown.Resources,
			wellknown.Resource{Path: g.path, Name: g.name, Scopes: g.advertised})
		return handlers.Group{Server: srv, Auth: middleware.AuthConfig{
			PAT: authn, JWT: jwt, Scopes: g.scopes,
			Audience:      wellknown.ResourceURL(cfg.PublicURL, g.path),
			MetadataURL:   metadataURL(g.path),
			RequireEESeat: g.edition == models.EditionEE, Failures: failures, Logger: logger,
		}}, nil
	}
	if deps.CE, err = group(ceGroup); err != nil {
		return nil, err
	}
	if cfg.Edition == models.EditionEE {
		ee, err := group(eeGroup)
		if err != nil {
			return nil, err
		}
		deps.EE = &ee
	}
	explain := []middleware.GroupAuth{{Path: ceGroup.path, Auth: deps.CE.Auth}}
	if deps.EE != nil {
		explain = append(explain, middleware.GroupAuth{Path: eeGroup.path, Auth: deps.EE.Auth})
	}
	deps.WellKnown.ExplainCredential = middleware.ExplainCredential(explain)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	deps.Metrics = middleware.NewMetrics(reg, mcp.MethodNames())
	registerIssueViewMetrics(reg, w.views)
	registerRateLimitBackend(reg, w.redis)
	gin.SetMode(gin.ReleaseMode)
	w.handler = handlers.NewRouter(deps)
	return w, nil
}

// newOAuth returns the JWT authenticator, or nil when no issuer is set.
func newOAuth(ctx context.Context, cfg *Config, e *Env, logger *slog.Logger) (middleware.JWTAuthenticator, error) {
	if cfg.OAuthIssuer == "" {
		return nil, nil
	}
	jc := jwtauth.Config{
		Issuer: cfg.OAuthIssuer, JWKS: cfg.OAuthJWKS, HS256Secret: []byte(cfg.OAuthHS256Secret),
		UserClaim: cfg.OAuthUserClaim, AllowPrivateJWKSHosts: cfg.OAuthAllowPrivateJWKS,
	}
	if cfg.OAuthPublicKeyFile != "" {
		pem, err := os.ReadFile(cfg.OAuthPublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("GLMCP_OAUTH_PUBLIC_KEY: %w", err)
		}
		jc.PublicKeyPEM = pem
	}
	v, err := jwtauth.New(jc)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	// Warm the key cache so a broken JWKS URL shows at start, not on the
	// first request; serving goes on either way (keys are retried).
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := v.Refresh(rctx); err != nil {
		logger.Warn("fetch OAuth signing keys", "error", err)
	}
	return auth.NewOAuth(v, e.Store.Users)
}

// Handler is the HTTP handler of the whole server.
func (w *Server) Handler() http.Handler { return w.handler }

// Hub is the change hub (tests and benchmarks observe it).
func (w *Server) Hub() *subscriptions.Hub { return w.hub }

// IdentityCache is the authenticator's cache (tests observe it).
func (w *Server) IdentityCache() *auth.IdentityCache { return w.idCache }

// IssueViewCache is get_issue's cache (tests observe it): notified on
// PostgreSQL, versioned on the embedded store.
func (w *Server) IssueViewCache() *store.IssueViewCache { return w.views }

// registerIssueViewMetrics exports c's counters.
func registerIssueViewMetrics(reg prometheus.Registerer, c *store.IssueViewCache) {
	counter := func(name, help string, v func(store.IssueViewCacheStats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(c.Stats())) })
	}
	reg.MustRegister(
		counter("glmcp_issue_view_cache_hits_total", "get_issue reads answered from the issue view cache.",
			func(s store.IssueViewCacheStats) int64 { return s.Hits }),
		counter("glmcp_issue_view_cache_misses_total", "get_issue reads the issue view cache sent to the database.",
			func(s store.IssueViewCacheStats) int64 { return s.Misses }),
		counter("glmcp_issue_view_cache_drops_total", "Issue views dropped by changes, local writes and evictions.",
			func(s store.IssueViewCacheStats) int64 { return s.Drops }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "glmcp_issue_view_cache_entries", Help: "Issue views cached."},
			func() float64 { return float64(c.Stats().Entries) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "glmcp_issue_view_cache_bytes",
			Help: "Estimated memory held by the cached issue views (bounded by store.DefaultIssueViewCacheBytes)."},
			func() float64 { return float64(c.Stats().Bytes) }),
	)
}

// registerRateLimitBackend exports where the limits are counted:
// glmcp_ratelimit_backend{backend="redis"} is 1 while Redis answers, and
// {backend="local"} is 1 while this instance counts on its own (no Redis
// configured, or Redis down).
func registerRateLimitBackend(reg prometheus.Registerer, rc *redislimit.Client) {
	const name, help = "glmcp_ratelimit_backend", "Where rate limits, the failed-authentication ban and the per-user stream cap are counted: 1 for the backend in use (redis or local)."
	inRedis := func() float64 {
		if rc != nil && rc.Up() {
			return 1
		}
		return 0
	}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: prometheus.Labels{"backend": "redis"}}, inRedis),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: prometheus.Labels{"backend": "local"}},
			func() float64 { return 1 - inRedis() }),
	)
}

// redisPrefix is the prefix of glmcp's Redis keys: GLMCP_REDIS_PREFIX, or
// one derived from the instance secret (which the instances of a
// deployment share, and which no key reveals).
func redisPrefix(cfg *Config, secret string) string {
	if cfg.RedisPrefix != "" {
		return cfg.RedisPrefix
	}
	sum := sha256.Sum256([]byte("glmcp redis key prefix\x00" + secret))
	return "glmcp:" + hex.EncodeToString(sum[:8]) + ":"
}

// Start runs the background workers (last_used_at writer, change listener
// or catalog poller) until Shutdown.
func (w *Server) Start(ctx context.Context) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.stopBG = cancel
	w.wg.Add(1)
	go func() { defer w.wg.Done(); w.authn.Run(bg) }()
	w.wg.Add(1)
	go func() { defer w.wg.Done(); w.audit.Run(bg) }() // flushed when Stop ends bg
	if w.listener != nil {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); _ = w.listener.Run(bg) }()
	}
	if w.redis != nil {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); w.redis.Run(bg) }()
	}
	if w.poll != nil {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); pollChanges(bg, w.poll, w.hub, time.Second, w.logger) }()
	}
}

// Listening returns a channel closed once cross-instance change
// notifications are live (at once on the embedded store).
func (w *Server) Listening() <-chan struct{} {
	if w.listener != nil {
		return w.listener.Ready()
	}
	c := make(chan struct{})
	close(c)
	return c
}

// BeginShutdown ends every open listen stream with its final result and
// refuses new ones. Call it before http.Server.Shutdown, which waits for
// handlers to return.
func (w *Server) BeginShutdown() {
	w.once.Do(func() {
		close(w.shutdown)
		w.hub.Close()
	})
}

// WaitStreams waits, at most until ctx ends, for every listen stream to
// finish after BeginShutdown (its final result sent, its connection
// closed). http.Server.Shutdown does not wait for them: a listen stream on
// HTTP/1.x runs on a hijacked connection, outside net/http's bookkeeping.
func (w *Server) WaitStreams(ctx context.Context) error {
	select {
	case <-w.hub.Drained():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("listen streams still open: %w", ctx.Err())
	}
}

// Stop ends the background workers and waits for them.
func (w *Server) Stop() {
	w.BeginShutdown()
	if w.stopBG != nil {
		w.stopBG()
	}
	w.wg.Wait()
	if w.redis != nil {
		_ = w.redis.Close()
	}
}
