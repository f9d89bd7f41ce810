package main

import (
	"io"

	"github.com/spf13/cobra"
)

// app carries what every command shares.
type app struct {
	cfg    Config
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

func newRootCommand(getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	a := &app{getenv: getenv, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "glmcp",
		Short:         "A GitLab-compatible MCP server",
		Long:          "glmcp serves GitLab's MCP endpoint (/api/v4/mcp, and /api/v4/orbit/mcp on the EE edition) over both MCP eras, backed by PostgreSQL or an embedded SQLite store.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.cfg.validate()
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	bindConfig(root.PersistentFlags(), &a.cfg, getenv)
	serve := newServeCommand(a)
	root.AddCommand(serve, newMigrateCommand(a), newSeedCommand(a), newUsersCommand(a),
		newTokensCommand(a), newToolsCommand(a), newProjectsCommand(a))
	// `glmcp` alone serves.
	root.RunE = serve.RunE
	return root
}
