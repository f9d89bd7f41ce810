// Command glmcp serves a GitLab-compatible MCP endpoint and administers its
// store. See the README for the command-line contract; the command tree is
// package cli, which cmd/glmcp-conformance shares.
package main

import "gitlab.com/glmcp/glmcp/cmd/glmcp/cli"

func main() { cli.Main(cli.Build{}) }
