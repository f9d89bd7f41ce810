package conformance

import (
	"context"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// withProgress reports 0, 50 and 100 of 100, a step apart. The client sees
// them only when it sent a progress token.
func (f confFixtures) withProgress() tools.Definition {
	return confFixture("test_tool_with_progress", "Conformance fixture: reports progress 0, 50 and 100 of 100.",
		func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := f.deps.Sleep(ctx, fixtureStep); err != nil {
						return nil, err
					}
				}
				call.Progress(p, 100, fmt.Sprintf("Completed step %.0f of 100", p))
			}
			return &tools.Result{Text: "Progress reported: 0, 50, 100 of 100."}, nil
		})
}

// withLogging sends three info messages, a step apart.
func (f confFixtures) withLogging() tools.Definition {
	return confFixture("test_tool_with_logging", "Conformance fixture: sends three info log messages while it runs.",
		func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := f.deps.Sleep(ctx, fixtureStep); err != nil {
						return nil, err
					}
				}
				call.Log("info", Toolset, msg)
			}
			return &tools.Result{Text: "Tool with logging executed successfully"}, nil
		})
}

// fixtureMissingCapability needs the client's sampling capability: a
// 2026-07-28 request without it is refused with -32021 by the dispatcher.
// Legacy requests carry no capabilities, so there it runs.
func fixtureMissingCapability() tools.Definition {
	d := confFixture("test_missing_capability",
		"Conformance fixture: requires the sampling client capability (-32021 without it on 2026-07-28).",
		confText("The sampling capability requirement was met; the tool ran."))
	d.RequiredClientCapabilities = []string{"sampling"}
	return d
}

// fixtureStreamingElicitation answers a plain result: a stateless server
// never sends requests on a response stream (it would ask for input with an
// input_required result instead).
func fixtureStreamingElicitation() tools.Definition {
	return confFixture("test_streaming_elicitation",
		"Conformance fixture: its response stream carries no server-to-client requests.",
		func(_ context.Context, call *tools.Call) (*tools.Result, error) {
			call.Progress(1, 1, "Answering without asking the client anything")
			return &tools.Result{Text: "Stream observed: result only, no server-to-client requests."}, nil
		})
}

// fixtureLoggingTool logs one info message, which reaches the client only
// when it asked for log messages (on 2026-07-28: _meta logLevel).
func fixtureLoggingTool() tools.Definition {
	return confFixture("test_logging_tool", "Conformance fixture: logs one info message.",
		func(_ context.Context, call *tools.Call) (*tools.Result, error) {
			call.Log("info", Toolset, "test_logging_tool executed")
			return &tools.Result{Text: "Log message sent; it is delivered only at the client's requested level."}, nil
		})
}

// triggerToolChange announces a tools list change to every listen stream.
func (f confFixtures) triggerToolChange() tools.Definition {
	d := confFixture("test_trigger_tool_change",
		"Conformance fixture: announces a tools list change to every open subscriptions/listen stream.",
		func(ctx context.Context, _ *tools.Call) (*tools.Result, error) {
			if f.deps.NotifyToolsChanged == nil {
				return &tools.Result{Text: "Change notifications are not available on this server.", IsError: true}, nil
			}
			if err := f.deps.NotifyToolsChanged(ctx); err != nil {
				return nil, fmt.Errorf("announce tools change: %w", err)
			}
			return &tools.Result{Text: "notifications/tools/list_changed published"}, nil
		})
	// It changes no data, but it does act on other clients' streams.
	d.Annotations = models.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: ptr(true)}
	return d
}
