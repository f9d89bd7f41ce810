package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

func newProjectsReassignCommand(a *cli) *cobra.Command {
	var path, from, to string
	cmd := &cobra.Command{
		Use:   "reassign --path GROUP/NAME --from PLACEHOLDER --to USER",
		Short: "Give a placeholder user's contributions in an imported project to a real user (doc/import-export.md)",
		Long: "Reassign does what GitLab's user contribution mapping does after an import: everything the placeholder\n" +
			"user PLACEHOLDER (made by `projects import --file` for a source user) stands for in GROUP/NAME goes to\n" +
			"the active user USER — authorship of issues, merge requests, notes, pipelines, jobs and releases,\n" +
			"assignments, reviews, approvals, resolutions and membership (the higher role when USER is a member\n" +
			"already) — in one transaction. The placeholder user is removed when nothing names it any more.\n" +
			"Refused, nothing changed, when USER is not an active real user or PLACEHOLDER is no placeholder of\n" +
			"the project.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.onProject(cmd.Context(), path, func(ctx context.Context, e *app.Env, p *models.Project) error {
				r, err := e.Store.Imports.ReassignPlaceholder(ctx, p.ID, from, to)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "reassigned %s's contributions in %s to %s\n", r.Placeholder.Username, p.PathWithNamespace, r.Target.Username)
				moved := make(map[string]int, len(r.Moved))
				for k, v := range r.Moved {
					moved[k] = int(v)
				}
				printCounts(a, "moved", moved)
				if r.PlaceholderRemoved {
					fmt.Fprintf(a.stderr, "  placeholder user %s removed\n", r.Placeholder.Username)
				} else {
					fmt.Fprintf(a.stderr, "  placeholder user %s kept: other projects name it\n", r.Placeholder.Username)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "GROUP/NAME")
	cmd.Flags().StringVar(&from, "from", "", "the placeholder user's username")
	cmd.Flags().StringVar(&to, "to", "", "the username of the user who gets the contributions")
	for _, f := range []string{"path", "from", "to"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}
