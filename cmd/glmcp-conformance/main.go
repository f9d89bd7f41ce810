// Command glmcp-conformance is glmcp with the official MCP conformance
// suite's fixtures linked in: the same command tree, plus
// --conformance-fixtures (GLMCP_CONFORMANCE_FIXTURES), which serves the
// "conformance" toolset, the test:// resources, the test_* prompts and the
// logging capability to every user. Test use only (scripts/conformance);
// the product binary is cmd/glmcp, which links none of it.
package main

import (
	"gitlab.com/glmcp/glmcp/app/conformance"
	"gitlab.com/glmcp/glmcp/cmd/glmcp/cli"
)

func main() { cli.Main(cli.Build{Name: "glmcp-conformance", Fixtures: conformance.Fixtures}) }
