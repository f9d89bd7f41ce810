package cli

import (
	"context"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

func newOAuthTokensCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "oauth-tokens",
		Short: "Manage GitLab OAuth access tokens (oauth_access_tokens)",
		Long: "GitLab OAuth access tokens are normally issued by GitLab and read from a shared " +
			"oauth_access_tokens table (see doc/auth.md). These commands create and revoke rows " +
			"of that table directly: for tests and migrations.",
	}
	var user, scopes string
	var expiresIn int64
	create := &cobra.Command{
		Use:   "create --user U --scopes mcp[,api,…] [--expires-in 7200]",
		Short: "Create an OAuth access token and print it (and nothing else) on stdout",
		Long: "Prints the new token on stdout; it is shown only this once and stored only as its " +
			"SHA-512 digest, as GitLab stores it. It expires --expires-in seconds after now " +
			"(GitLab's default: 7200).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := app.ParseScopes(scopes)
			if err != nil {
				return err
			}
			if expiresIn <= 0 || expiresIn > math.MaxInt32 {
				return fmt.Errorf("--expires-in: %d is not a number of seconds between 1 and %d", expiresIn, math.MaxInt32)
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			u, err := userNamed(ctx, e, user)
			if err != nil {
				return err
			}
			raw, _, err := app.MintOAuthToken(ctx, e, u, sc, int(expiresIn))
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, raw)
			return nil
		},
	}
	create.Flags().StringVar(&user, "user", "", "username of the token's resource owner")
	create.Flags().StringVar(&scopes, "scopes", "", "comma-separated scopes: mcp, api, read_api, …")
	create.Flags().Int64Var(&expiresIn, "expires-in", models.DefaultOAuthExpiresIn, "lifetime in seconds")
	_ = create.MarkFlagRequired("user")
	_ = create.MarkFlagRequired("scopes")

	revoke := a.revokeCommand("Revoke an OAuth access token", "OAuth token", "token id",
		func(ctx context.Context, e *app.Env, raw string) (int64, error) {
			t, err := e.Store.Users.FindOAuthTokenByDigest(ctx, auth.OAuthDigest(raw))
			if err != nil {
				return 0, err
			}
			return t.ID, nil
		},
		func(ctx context.Context, e *app.Env, id int64) error { return e.Store.Users.RevokeOAuthToken(ctx, id) })
	cmd.AddCommand(create, revoke)
	return cmd
}
