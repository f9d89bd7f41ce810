package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/subscriptions"
)

func newToolsCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "List and administer the tool catalog"}
	list := &cobra.Command{
		Use: "list", Short: "List every tool with its toolset, edition and state", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			if err := a.syncTools(ctx, e); err != nil {
				return err
			}
			ts, err := e.Store.Tools.ListTools(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTOOLSET\tEDITION\tENABLED\tALIASES")
			for _, t := range ts {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\n", t.Name, t.Toolset, t.Edition, t.Enabled, strings.Join(t.Aliases, ","))
			}
			return tw.Flush()
		},
	}
	toggle := func(use, short string, enabled bool) *cobra.Command {
		return &cobra.Command{
			Use: use + " NAME", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return a.changeTool(cmd.Context(), args[0], func(ctx context.Context, e *app.Env) (bool, error) {
					return e.Store.Tools.SetToolEnabled(ctx, args[0], enabled)
				})
			},
		}
	}
	var description string
	describe := &cobra.Command{
		Use: "describe NAME --description TEXT", Short: "Replace a tool's description", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(description) == "" {
				return fmt.Errorf("--description: must not be empty")
			}
			return a.changeTool(cmd.Context(), args[0], func(ctx context.Context, e *app.Env) (bool, error) {
				return true, e.Store.Tools.UpdateToolDescription(ctx, args[0], description)
			})
		},
	}
	describe.Flags().StringVar(&description, "description", "", "the new description")
	_ = describe.MarkFlagRequired("description")
	cmd.AddCommand(list, toggle("enable", "Enable a tool", true), toggle("disable", "Disable a tool", false), describe)
	return cmd
}

// syncTools writes the code's tool definitions into the store, so the
// catalog is complete before the first serve.
func (a *cli) syncTools(ctx context.Context, e *app.Env) error {
	ts, err := app.NewToolService(&a.cfg, e, a.commandLogger())
	if err != nil {
		return err
	}
	return ts.Sync(ctx)
}

// changeTool applies change to the named tool and, when it changed
// something, tells every serving instance: through NOTIFY on PostgreSQL; on
// the embedded store a serving process notices the catalog version move
// within a second.
func (a *cli) changeTool(ctx context.Context, name string, change func(context.Context, *app.Env) (changed bool, err error)) error {
	e, err := a.openEnv(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	if err := a.syncTools(ctx, e); err != nil {
		return err
	}
	changed, err := change(ctx, e)
	if err != nil {
		if errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("no tool %q (see glmcp tools list)", name)
		}
		return err
	}
	if !changed || e.Embedded {
		return nil
	}
	t, err := e.Store.Tools.FindToolByName(ctx, name)
	if err != nil {
		return err
	}
	v, err := e.Store.Tools.CatalogVersion(ctx)
	if err != nil {
		return err
	}
	db, err := e.Store.SQLDB()
	if err != nil {
		return err
	}
	ev := subscriptions.Event{Kind: subscriptions.KindTools, Tool: t.Name, Edition: t.Edition, Version: v}
	if err := subscriptions.NewPGPublisher(db).Publish(ctx, ev); err != nil {
		return fmt.Errorf("notify serving instances: %w", err)
	}
	return nil
}
