package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"gitlab.com/glmcp/glmcp/app"

	"github.com/spf13/cobra"
)

// cli carries what every command shares.
type cli struct {
	cfg    app.Config
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

func newRootCommand(getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	var envErrs []error
	a := &cli{getenv: getenv, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "glmcp",
		Short:         "A GitLab-compatible MCP server",
		Long:          "glmcp serves GitLab's MCP endpoint (/api/v4/mcp, and /api/v4/orbit/mcp on the EE edition) over both MCP eras, backed by PostgreSQL or an embedded SQLite store.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       app.Version,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if needsNoConfig(cmd) {
				return nil
			}
			return errors.Join(append(envErrs, a.cfg.Validate())...)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	envErrs = bindConfig(root.PersistentFlags(), &a.cfg, getenv)
	serve := newServeCommand(a)
	root.AddCommand(serve, newMigrateCommand(a), newSeedCommand(a), newUsersCommand(a),
		newTokensCommand(a), newOAuthTokensCommand(a), newSecretCommand(a), newToolRulesCommand(a), newToolsCommand(a), newProjectsCommand(a), newCICommand(a), newHealthcheckCommand(a))
	// `glmcp` alone serves.
	root.RunE = serve.RunE
	return root
}

// needsNoConfig reports whether cmd only prints help or completion
// scripts, which must work whatever the configuration.
func needsNoConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "help" || c.Name() == "completion" {
			return true
		}
	}
	return false
}

func (a *cli) logger() *slog.Logger { return app.NewLogger(&a.cfg, a.stderr) }

// openEnv opens and migrates the configured store.
func (a *cli) openEnv(ctx context.Context) (*app.Env, error) {
	return app.OpenEnv(ctx, &a.cfg, a.logger())
}
