// Package conformance gathers the MCP conformance suite's fixtures (the
// tools of services/tools/conformance, the resources and prompts of
// services/resources/conformance) into the app.Fixtures the
// glmcp-conformance binary and the specs serve. The glmcp binary imports
// none of them (cmd/glmcp's deps test checks it).
package conformance

import (
	"context"

	"gitlab.com/glmcp/glmcp/app"
	resconf "gitlab.com/glmcp/glmcp/services/resources/conformance"
	"gitlab.com/glmcp/glmcp/services/tools"
	toolconf "gitlab.com/glmcp/glmcp/services/tools/conformance"
)

// Fixtures returns the conformance fixtures, for app.WithFixtures: the
// "conformance" toolset, the test:// resources and test_* prompts, and
// the logging capability.
func Fixtures() *app.Fixtures {
	return &app.Fixtures{
		Tools: func(notify func(context.Context) error) []tools.Definition {
			return toolconf.Tools(toolconf.Deps{NotifyToolsChanged: notify})
		},
		Content: resconf.Content(),
		Logging: true,
	}
}
