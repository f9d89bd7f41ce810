package app

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/conformance"
)

// conformanceFixtures returns the conformance toolset when the config
// enables it, and nil otherwise.
//
// test_trigger_tool_change announces a bulk tools change the way the CLI
// does: NOTIFY on PostgreSQL, so every instance on the database (this one
// included, through its listener) tells its streams; straight to this
// process's hub on the embedded store. The hub is read at call time: it is
// built after the tool service.
func (w *Server) conformanceFixtures(cfg *Config, e *Env) ([]tools.Definition, error) {
	if !cfg.ConformanceFixtures {
		return nil, nil
	}
	w.logger.Warn("conformance fixtures enabled: the test-only \"conformance\" toolset is listed to every user")
	event := subscriptions.Event{Kind: subscriptions.KindTools}
	var notify func(ctx context.Context) error
	if e.Embedded {
		notify = func(ctx context.Context) error {
			return subscriptions.LocalPublisher(w.hub).Publish(ctx, event)
		}
	} else {
		db, err := e.Store.SQLDB()
		if err != nil {
			return nil, fmt.Errorf("conformance fixtures: %w", err)
		}
		pub := subscriptions.NewPGPublisher(db)
		notify = func(ctx context.Context) error { return pub.Publish(ctx, event) }
	}
	return conformance.Tools(conformance.Deps{NotifyToolsChanged: notify}), nil
}
