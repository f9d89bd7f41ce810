package app

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/services/resources"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Fixtures are test-only additions to the server: the MCP conformance
// suite's fixtures (app/conformance builds them). app never imports them;
// a build that has them sets Config.Fixtures, so the glmcp binary links
// none of them (the glmcp-conformance binary and the specs do).
type Fixtures struct {
	// Tools returns tools served beside the catalog, to every user, and
	// never written to the store. notify announces a bulk change of the
	// tool list the way the CLI does: NOTIFY on PostgreSQL, so every
	// instance on the database (this one included, through its listener)
	// tells its streams; straight to this process's hub on the embedded
	// store.
	Tools func(notify func(context.Context) error) []tools.Definition
	// Content is served beside GitLab's resources and prompts.
	Content resources.Extra
	// Logging declares the logging capability (logging/setLevel, log
	// notifications), which only fixture tools use.
	Logging bool
}

// fixtureTools returns the fixtures' tools, or nil without fixtures. The
// hub is read when a tool announces a change: it is built after the tool
// service.
func (w *Server) fixtureTools(f *Fixtures, e *Env) ([]tools.Definition, error) {
	if f == nil || f.Tools == nil {
		return nil, nil
	}
	w.logger.Warn("conformance fixtures enabled: the test-only \"conformance\" toolset is listed to every user")
	event := subscriptions.Event{Kind: subscriptions.KindTools}
	if e.Embedded {
		return f.Tools(func(ctx context.Context) error {
			return subscriptions.LocalPublisher(w.hub).Publish(ctx, event)
		}), nil
	}
	db, err := e.Store.SQLDB()
	if err != nil {
		return nil, fmt.Errorf("conformance fixtures: %w", err)
	}
	pub := subscriptions.NewPGPublisher(db)
	return f.Tools(func(ctx context.Context) error { return pub.Publish(ctx, event) }), nil
}
