package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/handlers"
	"gitlab.com/glmcp/glmcp/handlers/mcp"
	"gitlab.com/glmcp/glmcp/handlers/wellknown"
	"gitlab.com/glmcp/glmcp/middleware"
	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
	"gitlab.com/glmcp/glmcp/services/catalog"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// wiring is the assembled server.
type wiring struct {
	deps     handlers.Deps
	hub      *subscriptions.Hub
	tools    *tools.Service
	authn    *auth.Authenticator
	listener *subscriptions.PGListener
	poll     versionSource // embedded store: catalog version poller
	logger   *slog.Logger
	wg       sync.WaitGroup
}

// serverInstructions tell a model how to use this server.
const serverInstructions = "This server exposes a GitLab instance's projects, issues, merge requests, " +
	"pipelines, notes and repository files as tools. Projects are named by numeric id or full path " +
	"(group/project). Objects the user may not see read as not found."

// wire builds every service and the router's dependencies.
func (a *app) wire(ctx context.Context, e *env, logger *slog.Logger, shutdown <-chan struct{}) (*wiring, error) {
	w := &wiring{logger: logger}
	ts, err := a.toolService(e, logger)
	if err != nil {
		return nil, err
	}
	if err := ts.Sync(ctx); err != nil {
		return nil, err
	}
	w.tools = ts
	w.hub = subscriptions.NewHub(subscriptions.Options{
		MaxPerUser: a.cfg.MaxUserStreams, MaxTotal: a.cfg.MaxStreams, Logger: logger,
		// A change must be visible to a client that re-lists on the
		// notification: drop the cached catalog before anyone is told.
		BeforePublish: func(subscriptions.Event) { ts.Invalidate() },
	})
	if e.embedded {
		w.poll = e.store
	} else {
		w.listener = subscriptions.NewPGListener(e.dsn, w.hub, logger)
	}

	authn, err := auth.NewAuthenticator(e.store, e.secret, nil, logger)
	if err != nil {
		return nil, err
	}
	w.authn = authn
	var jwt middleware.JWTAuthenticator
	if a.cfg.OAuthIssuer != "" {
		jc := jwtauth.Config{
			Issuer: a.cfg.OAuthIssuer, JWKS: a.cfg.OAuthJWKS, HS256Secret: []byte(a.cfg.OAuthHS256Secret),
			UserClaim: a.cfg.OAuthUserClaim, AllowPrivateJWKSHosts: a.cfg.OAuthAllowPrivateJWKS,
		}
		if a.cfg.OAuthPublicKeyFile != "" {
			pem, err := os.ReadFile(a.cfg.OAuthPublicKeyFile)
			if err != nil {
				return nil, fmt.Errorf("GLMCP_OAUTH_PUBLIC_KEY: %w", err)
			}
			jc.PublicKeyPEM = pem
		}
		v, err := jwtauth.New(jc)
		if err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
		oa, err := auth.NewOAuth(v, e.store)
		if err != nil {
			return nil, err
		}
		jwt = oa
	}

	lister, err := catalog.NewLister([]byte(e.secret), a.cfg.PageSize)
	if err != nil {
		return nil, err
	}
	w.deps = handlers.Deps{
		Logger: logger,
		Ready:  e.store.Ping,
		Origin: middleware.OriginPolicy{
			AllowedOrigins: append([]string{originOf(a.cfg.PublicURL)}, a.cfg.AllowedOrigins...),
			AllowedHosts:   append([]string{hostOf(a.cfg.PublicURL)}, a.cfg.AllowedHosts...),
			LoopbackOnly:   a.cfg.listensOnLoopback(),
		},
		WellKnown: wellknown.Config{PublicURL: a.cfg.PublicURL, AuthorizationServers: a.cfg.OAuthAuthorizationServers, EEEnabled: a.cfg.Edition == models.EditionEE},
	}
	if a.cfg.rateLimitEnabled {
		w.deps.Limiter = ratelimit.NewLimiter(a.cfg.rateLimit, nil)
	}
	group := func(edition models.Edition, path, name string, scopes auth.GroupScopes) (handlers.Group, error) {
		srv, err := mcp.New(mcp.Config{
			Edition: edition, ServerName: name, ServerVersion: version, Instructions: serverInstructions,
			ListTTL: a.cfg.ListTTL, DiscoverTTL: a.cfg.DiscoverTTL, MaxBodyBytes: a.cfg.MaxBodyBytes,
			KeepAlive: a.cfg.KeepAlive, Scopes: scopes,
			MetadataURL: wellknown.MetadataURL(a.cfg.PublicURL, path), Logger: logger,
		}, mcp.Deps{Catalog: ts, Lister: lister, Hub: w.hub, Shutdown: shutdown})
		if err != nil {
			return handlers.Group{}, err
		}
		return handlers.Group{Server: srv, Auth: middleware.AuthConfig{
			PAT: authn, JWT: jwt, Scopes: scopes,
			Audience:      wellknown.ResourceURL(a.cfg.PublicURL, path),
			MetadataURL:   wellknown.MetadataURL(a.cfg.PublicURL, path),
			RequireEESeat: edition == models.EditionEE, Logger: logger,
		}}, nil
	}
	if w.deps.CE, err = group(models.EditionCE, handlers.CEPath, "GitLab MCP Server", auth.CEScopes); err != nil {
		return nil, err
	}
	if a.cfg.Edition == models.EditionEE {
		ee, err := group(models.EditionEE, handlers.EEPath, "GitLab Orbit MCP Server", auth.EEScopes)
		if err != nil {
			return nil, err
		}
		w.deps.EE = &ee
	}
	return w, nil
}

// start runs the background workers until ctx ends.
func (w *wiring) start(ctx context.Context) {
	w.wg.Add(1)
	go func() { defer w.wg.Done(); w.authn.Run(ctx) }()
	if w.listener != nil {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); _ = w.listener.Run(ctx) }()
	}
	if w.poll != nil {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); pollCatalog(ctx, w.poll, w.hub, time.Second, w.logger) }()
	}
}

func (w *wiring) wait() { w.wg.Wait() }
