package cli

import (
	"fmt"
	"gitlab.com/glmcp/glmcp/app"

	"github.com/spf13/cobra"
)

func newMigrateCommand(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations to the configured store",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := a.openEnv(cmd.Context())
			if err != nil {
				return err
			}
			defer e.Close()
			v, err := e.Store.SchemaVersion(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "schema version %d\n", v)
			return nil
		},
	}
}

func newSeedCommand(a *cli) *cobra.Command {
	var demo bool
	cmd := &cobra.Command{
		Use:   "seed --demo",
		Short: "Fill the store with demo data and print a token per demo user",
		Long: "Builds a small GitLab world (users with different roles, public, internal and " +
			"private projects, issues with notes, merge requests with commits, diffs and " +
			"pipelines, repository files). Safe to run again: existing data is kept and only " +
			"fresh tokens are minted.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !demo {
				return fmt.Errorf("nothing to seed: pass --demo")
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			tokens, err := app.SeedDemo(ctx, e)
			if err != nil {
				return err
			}
			for _, t := range tokens {
				fmt.Fprintf(a.stdout, "%-8s %-28s %s\n", t.Username, t.Role, t.Token)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&demo, "demo", false, "seed the demo world")
	return cmd
}
