package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
)

func newAuditCommand(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Read the audit events of tool calls (GitLab's ai_tool_invoked)",
	}
	var user, project, since, format string
	var limit int
	list := &cobra.Command{
		Use:   "list [--user U] [--project P] [--since T] [--format text|json]",
		Short: "List audit events, newest first",
		Long: "--since takes an RFC 3339 time (2026-12-07T10:00:00Z) or an age (90m, 24h, 7d). " +
			"--project matches the project or group a call named, as it named it (path or id).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := models.AuditFilter{Username: user, Target: project, Limit: limit}
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return err
				}
				f.Since = t
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format: %q is not text or json", format)
			}
			if limit < 1 || limit > 100000 {
				return fmt.Errorf("--limit: %d is not within 1..100000", limit)
			}
			ctx := cmd.Context()
			e, err := a.openEnv(ctx)
			if err != nil {
				return err
			}
			defer e.Close()
			events, err := e.Store.Audit.ListAuditEvents(ctx, f)
			if err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(a.stdout)
				for _, ev := range events {
					if err := enc.Encode(auditJSON(ev)); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tUSER\tTOOL\tTARGET\tOUTCOME\tMS\tCLIENT\tREQUEST")
			for _, ev := range events {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", ev.CreatedAt.Format(time.RFC3339), ev.Username, ev.Tool,
					ev.Target, ev.Outcome, ev.DurationMs, ev.ClientName, ev.CorrelationID)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&user, "user", "", "only this user's calls (username)")
	list.Flags().StringVar(&project, "project", "", "only calls naming this project or group")
	list.Flags().StringVar(&since, "since", "", "only calls at or after this time (RFC 3339) or within this age (24h, 7d)")
	list.Flags().StringVar(&format, "format", "text", "text or json (one object a line)")
	list.Flags().IntVar(&limit, "limit", 100, "most events listed")
	cmd.AddCommand(list)
	return cmd
}

// parseSince reads --since: an RFC 3339 time or an age before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := app.ParseRetention(s)
	if err != nil || d == 0 {
		if d2, err2 := time.ParseDuration(s); err2 == nil && d2 > 0 {
			return now.Add(-d2), nil
		}
		return time.Time{}, fmt.Errorf("--since: %q is not an RFC 3339 time or an age like 90m, 24h or 7d", s)
	}
	return now.Add(-d), nil
}

// auditJSON is one event as `audit list --format json` writes it, in
// GitLab's audit event vocabulary.
func auditJSON(e models.AuditEvent) map[string]any {
	return map[string]any{
		"id": e.ID, "created_at": e.CreatedAt.Format(time.RFC3339Nano), "event_name": e.EventName,
		"author_id": e.UserID, "author_name": e.Username, "token_id": e.TokenID,
		"client_name": e.ClientName, "client_version": e.ClientVersion, "tool_name": e.Tool,
		"entity_path": e.Target, "entity_type": e.TargetType, "outcome": e.Outcome,
		"duration_ms": e.DurationMs, "correlation_id": e.CorrelationID, "argument_names": e.ArgumentNames,
	}
}
