package cli

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure tool-rules set stores a rule on a project or group (replacing an
// earlier one), list shows them with the instance default, and bad input is
// refused with a clear message and no row.
func TestToolRulesSetList(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.mustRun(t, "projects", "create", "--path", "acme/app")
		b.mustRun(t, "tool-rules", "set", "--namespace", "acme", "--writes", "--rule", "ask")
		b.mustRun(t, "tool-rules", "set", "--namespace", "acme/app", "--tool", "create_issue", "--rule", "allow")
		b.mustRun(t, "tool-rules", "set", "--namespace", "acme/app", "--tool", "create_issue", "--rule", "deny")
		out := b.mustRun(t, "tool-rules", "list")
		rows := lines(out)
		want := [][]string{
			{"NAMESPACE", "KIND", "TOOL", "RULE"},
			{"acme", "group", "(every", "write", "tool)", "ask"},
			{"acme/app", "project", "create_issue", "deny"},
			{"(default)", "instance", "(every", "write", "tool)", "allow"},
		}
		if len(rows) != len(want) {
			t.Fatalf("tool-rules list =\n%s", out)
		}
		for i, w := range want {
			if got := strings.Fields(rows[i]); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("row %d = %q, want %q", i, got, w)
			}
		}
		s := b.store(t)
		before := count(t, s, &models.ToolRule{})
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--namespace", "nope", "--writes", "--rule", "ask"}, `no project or group "nope"`},
			{[]string{"--namespace", "acme", "--tool", "get_issue", "--rule", "ask"}, "read-only"},
			{[]string{"--namespace", "acme", "--tool", "make_coffee", "--rule", "ask"}, `no tool "make_coffee"`},
			{[]string{"--namespace", "acme", "--tool", "create_issue", "--writes", "--rule", "ask"}, "exactly one of --tool NAME and --writes"},
			{[]string{"--namespace", "acme", "--rule", "ask"}, "exactly one of --tool NAME and --writes"},
			{[]string{"--namespace", "acme", "--writes", "--rule", "maybe"}, `"maybe" is not allow, ask or deny`},
		} {
			b.wantErr(t, []string{tt.want}, append([]string{"tool-rules", "set"}, tt.args...)...)
		}
		if after := count(t, s, &models.ToolRule{}); after != before {
			t.Fatalf("rules %d → %d after refused commands", before, after)
		}
	})
}
