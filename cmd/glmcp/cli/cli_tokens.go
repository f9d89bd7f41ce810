package cli

import (
	"context"
	"errors"
	"fmt"
	"gitlab.com/glmcp/glmcp/app"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

func newTokensCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "tokens", Short: "Manage personal access tokens"}
	var user, scopes, name, expiresAt string
	create := &cobra.Command{
		Use:   "create --user U --scopes mcp[,api,…] [--name N] [--expires-at YYYY-MM-DD]",
		Short: "Create a personal access token and print it (and nothing else) on stdout",
		Long: "Prints the new token on stdout; it is shown only this once and stored only as a " +
			"digest. Without --expires-at the token expires in 30 days; at most 365 days ahead.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := app.ParseScopes(scopes)
			if err != nil {
				return err
			}
			exp, err := app.ParseExpiry(expiresAt, time.Now().UTC())
			if err != nil {
				return err
			}
			if name == "" {
				name = "glmcp"
			}
			if len(name) > 255 {
				return fmt.Errorf("--name: at most 255 characters")
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
			raw, _, err := app.MintToken(ctx, e, u, name, sc, exp)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, raw)
			return nil
		},
	}
	create.Flags().StringVar(&user, "user", "", "username of the token's owner")
	create.Flags().StringVar(&scopes, "scopes", "", "comma-separated scopes: mcp, api, read_api, mcp_orbit, ai_workflows, …")
	create.Flags().StringVar(&name, "name", "", "token name (default glmcp)")
	create.Flags().StringVar(&expiresAt, "expires-at", "", "expiry date YYYY-MM-DD (default: 30 days from today)")
	_ = create.MarkFlagRequired("user")
	_ = create.MarkFlagRequired("scopes")

	revoke := a.revokeCommand("Revoke a token", "token", "token id (from tokens list)",
		func(ctx context.Context, e *app.Env, raw string) (int64, error) {
			t, err := e.Store.Users.FindTokenByDigest(ctx, auth.Digest(raw, e.Secret))
			if err != nil {
				return 0, err
			}
			return t.ID, nil
		},
		func(ctx context.Context, e *app.Env, id int64) error { return e.Store.Users.RevokeToken(ctx, id) })

	var listUser string
	list := &cobra.Command{
		Use: "list [--user U]", Short: "List tokens (never the tokens themselves)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			var uid *int64
			names := map[int64]string{}
			users, err := e.Store.Users.ListUsers(ctx)
			if err != nil {
				return err
			}
			for _, u := range users {
				names[u.ID] = u.Username
				if u.Username == listUser {
					uid = &u.ID
				}
			}
			if listUser != "" && uid == nil {
				return fmt.Errorf("no user %q", listUser)
			}
			toks, err := e.Store.Users.ListTokens(ctx, uid)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUSER\tNAME\tSCOPES\tEXPIRES\tREVOKED\tLAST USED")
			for _, t := range toks {
				exp, used := "never", "never"
				if t.ExpiresAt != nil {
					exp = t.ExpiresAt.Format("2006-01-02")
				}
				if t.LastUsedAt != nil {
					used = t.LastUsedAt.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%v\t%s\t%t\t%s\n", t.ID, names[t.UserID], t.Name, []string(t.Scopes), exp, t.Revoked, used)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&listUser, "user", "", "only this user's tokens")
	cmd.AddCommand(create, revoke, list)
	return cmd
}

// revokeCommand is the `revoke (--id N | --token T)` command of one kind of
// token (kind names it in messages): find returns the id of a raw token,
// revoke revokes by id; either answers models.ErrNotFound for none.
func (a *cli) revokeCommand(short, kind, idHelp string,
	find func(ctx context.Context, e *app.Env, raw string) (int64, error),
	revoke func(ctx context.Context, e *app.Env, id int64) error) *cobra.Command {
	var id int64
	var token string
	cmd := &cobra.Command{
		Use: "revoke (--id N | --token T)", Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (id == 0) == (token == "") {
				return fmt.Errorf("pass exactly one of --id and --token")
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			if token != "" {
				id, err = find(ctx, e, token)
				if errors.Is(err, models.ErrNotFound) {
					return fmt.Errorf("no such token")
				}
				if err != nil {
					return err
				}
			}
			if err := revoke(ctx, e, id); err != nil {
				if errors.Is(err, models.ErrNotFound) {
					return fmt.Errorf("no %s with id %d", kind, id)
				}
				return err
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&id, "id", 0, idHelp)
	cmd.Flags().StringVar(&token, "token", "", "the token itself")
	return cmd
}
