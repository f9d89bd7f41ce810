package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

// cli carries what every command shares.
type cli struct {
	cfg   app.Config
	build Build
	// fixtures is --conformance-fixtures.
	fixtures bool
	getenv   func(string) string
	stdout   io.Writer
	stderr   io.Writer
}

func newRootCommand(b Build, getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	var envErrs []error
	a := &cli{build: b, getenv: getenv, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           b.name(),
		Short:         "A GitLab-compatible MCP server",
		Long:          "glmcp serves GitLab's MCP endpoint (/api/v4/mcp, and /api/v4/orbit/mcp on the EE edition) over both MCP eras, backed by PostgreSQL or an embedded SQLite store.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       app.Version,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if needsNoConfig(cmd) {
				return nil
			}
			switch {
			case a.fixtures && b.Fixtures == nil:
				envErrs = append(envErrs, namedAsTyped(cmd.Flags(), errNoFixtures))
			case a.fixtures:
				a.cfg.Fixtures = b.Fixtures()
			}
			if err := a.cfg.Validate(); err != nil {
				return errors.Join(append(envErrs, namedAsTyped(cmd.Flags(), err))...)
			}
			return errors.Join(envErrs...)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	envErrs = bindConfig(root.PersistentFlags(), &a.cfg, &a.fixtures, getenv)
	if b.Fixtures == nil {
		_ = root.PersistentFlags().MarkHidden("conformance-fixtures")
	}
	serve := newServeCommand(a)
	root.AddCommand(serve, newMigrateCommand(a), newSeedCommand(a), newUsersCommand(a),
		newTokensCommand(a), newOAuthTokensCommand(a), newSecretCommand(a), newToolRulesCommand(a), newAuditCommand(a), newToolsCommand(a), newProjectsCommand(a), newCICommand(a), newHealthcheckCommand(a))
	// `glmcp` alone serves.
	root.RunE = serve.RunE
	return root
}

// errNoFixtures refuses the conformance fixtures in a build that has none
// (glmcp): a setting silently ignored would look like a server without them.
var errNoFixtures = errors.New("GLMCP_CONFORMANCE_FIXTURES: glmcp has no conformance fixtures " +
	"(they are test-only, in the glmcp-conformance binary: go build ./cmd/glmcp-conformance)")

// envInUsage finds the variable a flag's usage names ("… [GLMCP_X]").
var envInUsage = regexp.MustCompile(`\[(GLMCP_[A-Z0-9_]+)`)

// namedAsTyped rewrites configuration errors, which name settings by
// their environment variable, to name the flag instead where the user
// typed the flag (--database-url rather than GLMCP_DATABASE_URL).
func namedAsTyped(fs *pflag.FlagSet, err error) error {
	msg := err.Error()
	fs.Visit(func(f *pflag.Flag) { // the flags set on the command line
		if m := envInUsage.FindStringSubmatch(f.Usage); m != nil {
			msg = strings.ReplaceAll(msg, m[1], "--"+f.Name)
		}
	})
	return errors.New(msg)
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

// commandLogger is the logger of an administrative command (every command
// but serve): an operator's command prints its result and real problems,
// so its log starts at warn (the store's routine notes, such as the
// repository recovery report, stay out of stderr) unless the log level is
// debug, which asks for everything.
func (a *cli) commandLogger() *slog.Logger {
	cfg := a.cfg
	if cfg.LogLevel != "debug" {
		cfg.LogLevel = "warn"
	}
	return app.NewLogger(&cfg, a.stderr)
}

// userNamed returns the user named username, or the error "no user …".
func userNamed(ctx context.Context, e *app.Env, username string) (*models.User, error) {
	u, err := e.Store.Users.FindUserByUsername(ctx, username)
	if errors.Is(err, models.ErrNotFound) {
		return nil, fmt.Errorf("no user %q", username)
	}
	return u, err
}

// projectNamed finds the project at path ("GROUP/NAME", slashes around it
// ignored); a missing one says so by its path.
func projectNamed(ctx context.Context, e *app.Env, path string) (*models.Project, error) {
	p, err := e.Store.Projects.FindProjectByPath(ctx, strings.Trim(path, "/"))
	if errors.Is(err, models.ErrNotFound) {
		return nil, fmt.Errorf("no project %q", path)
	}
	return p, err
}

// openEnv opens and migrates the configured store, for an administrative
// command (its logger is commandLogger).
// onProject runs fn on the project named by path (projectNamed), in an
// environment opened for it and closed after: what every per-project
// command (housekeep, export, import-failures, reassign) starts with.
func (a *cli) onProject(ctx context.Context, path string, fn func(ctx context.Context, e *app.Env, p *models.Project) error) error {
	e, err := a.openEnv(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	p, err := projectNamed(ctx, e, path)
	if err != nil {
		return err
	}
	return fn(ctx, e, p)
}

func (a *cli) openEnv(ctx context.Context) (*app.Env, error) {
	return app.OpenEnv(ctx, &a.cfg, a.commandLogger())
}
