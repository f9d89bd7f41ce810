package app

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/audit"
	"gitlab.com/glmcp/glmcp/services/safety/sanitize"
	"gitlab.com/glmcp/glmcp/services/secrets"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// NewToolService returns the tool service over the store with every tool
// the code implements: the catalog the CLI syncs and administers. The
// conformance fixtures are never part of it; New adds them (see
// WithFixtures) as transient tools.
func NewToolService(cfg *Config, e *Env, logger *slog.Logger) (*tools.Service, error) {
	return newToolService(cfg, e, logger, nil, false, nil)
}

// newToolService is NewToolService plus transient definitions and, for
// the server (serving), the safety links of the tools/call chain: the
// audit event of every call to record (nil: none), sanitised results and
// secret push protection when they are on. The CLI's catalog commands
// never call a tool and build none of them.
func newToolService(cfg *Config, e *Env, logger *slog.Logger, transient []tools.Definition, serving bool, record func(models.AuditEvent)) (*tools.Service, error) {
	defs := gitlab.Tools(gitlabDeps(cfg, e))
	opts := tools.Options{Logger: logger, Transient: transient,
		Secret: []byte(e.Secret), PageSize: cfg.PageSize, ReloadTimeout: cfg.DBStatementTimeout,
		Rules: e.Store.Tools, DefaultWriteRule: models.ToolRuleKind(cfg.DefaultWriteRule), StateTTL: cfg.RequestStateTTL}
	if serving && cfg.SecretDetection {
		scan, err := secretScan(cfg)
		if err != nil {
			return nil, err
		}
		opts.SecretScan = scan
	}
	if serving {
		if record != nil {
			opts.Outer = []tools.Link{audit.Link(record)}
		}
		if cfg.Sanitize {
			opts.Wrappers = []tools.Link{sanitize.Link()}
		}
	}
	return tools.NewService(e.Store.Tools, defs, opts)
}

// secretScan is secret push protection over the instance's token
// prefixes (doc/security.md).
func secretScan(cfg *Config) (func(any) []string, error) {
	prefixes := []string{cfg.TokenPrefix}
	if cfg.InstanceTokenPrefix != "" {
		prefixes = append(prefixes, cfg.InstanceTokenPrefix+"-"+cfg.TokenPrefix)
	}
	sc, err := secrets.Shared(prefixes...)
	if err != nil {
		return nil, err
	}
	return func(args any) []string {
		found := sc.Value(args)
		out := make([]string, len(found))
		for i, f := range found {
			out[i] = f.String()
		}
		return out
	}, nil
}

// gitlabDeps are the GitLab tools' dependencies (and the merge request
// patch reader's).
func gitlabDeps(cfg *Config, e *Env) gitlab.Deps {
	d := gitlab.Deps{Store: gitlab.FamiliesOf(e.Store), InTx: gitlab.Transactions(e.Store), Repositories: e.Repositories,
		PublicURL: cfg.PublicURL, Version: gitlab.ServerVersion{Version: Version}, CursorSecret: []byte(e.Secret)}
	if e.CodeIndex != nil { // a nil *Indexer must not become a non-nil interface
		d.CodeIndex = e.CodeIndex
	}
	return d
}

// originOf returns the origin (scheme://host[:port]) of a URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// changeSource is the embedded store's record of changes made by any
// process: the catalog version and the resource_changes rows.
type changeSource interface {
	CatalogVersion(ctx context.Context) (int64, error)
	ResourceChangesAfter(ctx context.Context, after int64, limit int) ([]store.ResourceChange, int64, error)
}

// pollChanges publishes a bulk tools change whenever the catalog version
// moves, and each resource change the triggers recorded. It is how changes
// made by another process (the CLI) or by the database itself reach listen
// streams on the embedded store, which has no LISTEN/NOTIFY.
func pollChanges(ctx context.Context, src changeSource, hub *subscriptions.Hub, every time.Duration, logger *slog.Logger) {
	last, err := src.CatalogVersion(ctx)
	if err != nil {
		logger.WarnContext(ctx, "read catalog version", "error", err)
	}
	_, seen, err := src.ResourceChangesAfter(ctx, -1, 0)
	if err != nil {
		logger.WarnContext(ctx, "read resource changes", "error", err)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		v, err := src.CatalogVersion(ctx)
		if err != nil {
			if ctx.Err() == nil {
				logger.WarnContext(ctx, "read catalog version", "error", err)
			}
			continue
		}
		if v != last {
			last = v
			hub.Publish(subscriptions.Event{Kind: subscriptions.KindTools, Version: v})
		}
		for ctx.Err() == nil {
			changes, next, err := src.ResourceChangesAfter(ctx, seen, 500)
			if err != nil {
				logger.WarnContext(ctx, "read resource changes", "error", err)
				break
			}
			seen = next
			for _, c := range changes {
				hub.Publish(subscriptions.Event{Kind: subscriptions.KindResource, Resource: c.Resource})
			}
			if len(changes) < 500 {
				break
			}
		}
	}
}
