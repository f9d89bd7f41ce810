package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
)

func newSecretCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "secret", Short: "Manage the instance secret"}
	var yes bool
	rotate := &cobra.Command{
		Use:   "rotate --yes",
		Short: "Make the configured GLMCP_SECRET (or a new generated one) this database's secret",
		Long: "Every command refuses to run with a secret other than the one the database was set up " +
			"with. Run this with the new GLMCP_SECRET (or none, to generate a new secret into the " +
			"database) to change it on purpose. Personal access token digests depend on the secret, " +
			"so every personal access token is revoked; mint new ones afterwards. OAuth access tokens " +
			"are not affected. Restart every instance with the new secret.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !yes {
				return fmt.Errorf("rotating the secret revokes every personal access token: pass --yes to go ahead")
			}
			r, err := app.RotateSecret(cmd.Context(), &a.cfg, a.commandLogger())
			if err != nil {
				return err
			}
			switch {
			case !r.Changed:
				fmt.Fprintln(a.stdout, "the secret already is this database's secret: nothing changed")
			case r.Generated:
				fmt.Fprintf(a.stdout, "generated a new secret into the database; revoked %d personal access tokens\n", r.RevokedTokens)
			default:
				fmt.Fprintf(a.stdout, "GLMCP_SECRET is now this database's secret; revoked %d personal access tokens\n", r.RevokedTokens)
			}
			return nil
		},
	}
	rotate.Flags().BoolVar(&yes, "yes", false, "confirm: every personal access token is revoked")
	cmd.AddCommand(rotate)
	return cmd
}
