package conformance

import (
	"context"
	"encoding/json"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// Toolset is the toolset of the conformance fixtures.
const Toolset = "conformance"

// Deps are what the conformance fixtures need.
type Deps struct {
	// NotifyToolsChanged announces a bulk tools list change to every open
	// listen stream (on every instance sharing the database). Without it,
	// test_trigger_tool_change answers an error result.
	NotifyToolsChanged func(ctx context.Context) error
	// Sleep pauses a fixture between its progress or log steps, returning
	// early with ctx's error. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// fixtureStep is the pause between the progress and log steps of the
// streaming fixtures: long enough for a client to see separate events.
const fixtureStep = 50 * time.Millisecond

// Tools returns the diagnostic tools the official MCP
// conformance suite calls (the names and behaviour of its reference
// "everything" servers). They are test affordances, never product tools:
// the server adds them only when configured to, as transient definitions.
func Tools(deps Deps) []tools.Definition {
	if deps.Sleep == nil {
		deps.Sleep = confSleep
	}
	f := confFixtures{deps: deps}
	return append([]tools.Definition{
		fixtureSimpleText(),
		fixtureImage(),
		fixtureAudio(),
		fixtureEmbeddedResource(),
		fixtureMultipleContent(),
		fixtureErrorHandling(),
		f.withProgress(),
		f.withLogging(),
		fixtureJSONSchema202012(),
		fixtureXMCPHeader(),
		fixtureMissingCapability(),
		fixtureStreamingElicitation(),
		fixtureLoggingTool(),
		f.triggerToolChange(),
	}, inputFixtures()...)
}

type confFixtures struct{ deps Deps }

// confNoArgs is the input schema of a fixture that takes no arguments.
var confNoArgs = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// confFixture returns a read-only conformance definition.
func confFixture(name, description string, run tools.Handler) tools.Definition {
	return tools.Definition{
		Name:        name,
		Description: description,
		InputSchema: confNoArgs,
		Annotations: models.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false)},
		Toolset:     Toolset,
		Edition:     models.EditionCE,
		Run:         run,
	}
}

// confText returns a handler answering s.
func confText(s string) tools.Handler {
	return func(context.Context, *tools.Call) (*tools.Result, error) { return &tools.Result{Text: s}, nil }
}

func confSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func ptr[T any](v T) *T { return &v }
