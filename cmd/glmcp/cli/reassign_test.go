package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Ensure `projects reassign` gives a placeholder's contributions in an
// imported project to the real user and removes the placeholder, and
// refuses, changing nothing, a blocked target, a user who is no
// placeholder of the project and an unknown project.
func TestProjects_reassign(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.mustRun(t, "seed", "--demo")
		file := filepath.Join(t.TempDir(), "mcp.tar.gz")
		b.mustRun(t, "projects", "export", "--path", "gitlab-org/gitlab-mcp", "--file", file)
		// bob is no administrator: every author becomes a placeholder.
		_, errOut, err := b.run(t, "projects", "import", "--path", "copies/mcp", "--file", file, "--as", "bob")
		if err != nil || !strings.Contains(errOut, "glmcp projects reassign --path copies/mcp --from PLACEHOLDER --to USER") {
			t.Fatalf("import: %v, stderr %q; want a pointer to projects reassign", err, errOut)
		}
		s := b.store(t)
		p := mustProject(t, b, "copies/mcp")
		var ph int64
		s.DB().Raw("SELECT id FROM users WHERE username = 'alice_placeholder_1'").Scan(&ph)
		if ph == 0 {
			t.Fatal("no placeholder alice_placeholder_1 after the import")
		}
		state := func() string {
			var n []int64
			s.DB().Raw(`SELECT count(*) FROM users UNION ALL SELECT count(*) FROM issues WHERE author_id = ?
UNION ALL SELECT count(*) FROM notes WHERE author_id = ? UNION ALL SELECT count(*) FROM import_source_users WHERE status = 'completed'`, ph, ph).Scan(&n)
			return fmt.Sprint(n)
		}
		before := state()
		b.wantErr(t, []string{"dave is blocked", "active user"}, "projects", "reassign", "--path", "copies/mcp", "--from", "alice_placeholder_1", "--to", "dave")
		b.wantErr(t, []string{"alice is not a placeholder user of this project"}, "projects", "reassign", "--path", "copies/mcp", "--from", "alice", "--to", "bob")
		b.wantErr(t, []string{`no project "copies/none"`}, "projects", "reassign", "--path", "copies/none", "--from", "alice_placeholder_1", "--to", "alice")
		b.wantErr(t, []string{`no user "nobody"`}, "projects", "reassign", "--path", "copies/mcp", "--from", "alice_placeholder_1", "--to", "nobody")
		if after := state(); after != before {
			t.Errorf("refusals changed the store: %s, was %s", after, before)
		}

		out, errOut, err := b.run(t, "projects", "reassign", "--path", "copies/mcp", "--from", "alice_placeholder_1", "--to", "alice")
		if err != nil {
			t.Fatalf("reassign: %v\n%s", err, errOut)
		}
		if out != "" {
			t.Errorf("stdout = %q, want nothing", out)
		}
		for _, want := range []string{"reassigned alice_placeholder_1's contributions in copies/mcp to alice", "moved: ", "issues.author_id ",
			"placeholder user alice_placeholder_1 removed"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr = %q, want %q", errOut, want)
			}
		}
		var named, alice int64
		s.DB().Raw("SELECT count(*) FROM users WHERE id = ?", ph).Scan(&named)
		s.DB().Raw("SELECT count(*) FROM issues i JOIN users u ON u.id = i.author_id WHERE i.project_id = ? AND u.username = 'alice'", p.ID).Scan(&alice)
		// alice was a member of the exported project: her role comes
		// with her contributions (bob, the importer, is the only member
		// the import made).
		var role int64
		s.DB().Raw("SELECT m.access_level FROM project_members m JOIN users u ON u.id = m.user_id WHERE m.project_id = ? AND u.username = 'alice'", p.ID).Scan(&role)
		if role == 0 {
			t.Errorf("alice is no member of the copy after the reassignment")
		}
		if named != 0 || alice == 0 {
			t.Errorf("placeholder rows %d (want 0), issues of the copy by alice %d (want some)", named, alice)
		}
	})
}
