package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/catalog"
)

func newToolRulesCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tool-rules",
		Short: "Allow, ask for approval of, or deny write tools per project or group",
		Long: "A rule on a group applies to its subgroups and projects unless a nearer group or the " +
			"project has its own; within one project or group a rule for a tool comes before the rule " +
			"for every write tool. Where no rule applies, GLMCP_DEFAULT_WRITE_RULE does (default allow). " +
			"Read-only tools are never governed by rules.",
	}
	var namespace, tool, rule string
	var writes bool
	set := &cobra.Command{
		Use:   "set --namespace PATH (--tool NAME | --writes) --rule allow|ask|deny",
		Short: "Set the rule for one write tool or every write tool on a project or group",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (tool == "") == !writes {
				return fmt.Errorf("pass exactly one of --tool NAME and --writes")
			}
			k := models.ToolRuleKind(rule)
			if !k.Valid() {
				return fmt.Errorf("--rule: %q is not allow, ask or deny", rule)
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			if tool != "" {
				ts, err := app.NewToolService(&a.cfg, e, a.commandLogger())
				if err != nil {
					return err
				}
				t, ok := ts.Describe(tool)
				if !ok {
					return fmt.Errorf("--tool: no tool %q (glmcp tools list shows them)", tool)
				}
				if catalog.ReadOnly(t) {
					return fmt.Errorf("--tool: %s is read-only; rules govern write tools only", tool)
				}
			}
			r := &models.ToolRule{Tool: tool, Rule: k}
			p, err := e.Store.Projects.FindProjectByPath(ctx, namespace)
			switch {
			case err == nil:
				r.ProjectID = &p.ID
			case errors.Is(err, models.ErrNotFound):
				g, gerr := e.Store.Groups.FindGroupByFullPath(ctx, namespace)
				if errors.Is(gerr, models.ErrNotFound) {
					return fmt.Errorf("--namespace: no project or group %q", namespace)
				}
				if gerr != nil {
					return gerr
				}
				r.NamespaceID = &g.ID
			default:
				return err
			}
			return e.Store.Tools.SetToolRule(ctx, r)
		},
	}
	set.Flags().StringVar(&namespace, "namespace", "", "full path of a project or group")
	set.Flags().StringVar(&tool, "tool", "", "a write tool's name")
	set.Flags().BoolVar(&writes, "writes", false, "every write tool")
	set.Flags().StringVar(&rule, "rule", "", "allow, ask or deny")
	_ = set.MarkFlagRequired("namespace")
	_ = set.MarkFlagRequired("rule")

	list := &cobra.Command{
		Use: "list", Short: "List the rules", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			rules, err := e.Store.Tools.ListToolRules(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAMESPACE\tKIND\tTOOL\tRULE")
			for _, r := range rules {
				kind, t := "group", r.Tool
				if r.ProjectID != nil {
					kind = "project"
				}
				if t == "" {
					t = "(every write tool)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Path, kind, t, r.Rule)
			}
			fmt.Fprintf(tw, "(default)\tinstance\t(every write tool)\t%s\n", a.cfg.DefaultWriteRule)
			return tw.Flush()
		},
	}
	cmd.AddCommand(set, list)
	return cmd
}
