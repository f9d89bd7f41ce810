package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure `projects export` writes an archive that `projects import --file`
// brings back under another path, with a summary by relation, and that
// the flags are checked: one of --from and --file, --as with --file only,
// an existing path and a bad archive refused with nothing written.
func TestProjects_exportImportArchive(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.mustRun(t, "seed", "--demo")
		file := filepath.Join(t.TempDir(), "mcp.tar.gz")
		_, errOut, err := b.run(t, "projects", "export", "--path", "gitlab-org/gitlab-mcp", "--file", file)
		if err != nil {
			t.Fatalf("export: %v\n%s", err, errOut)
		}
		if !strings.Contains(errOut, "exported gitlab-org/gitlab-mcp to "+file) || !strings.Contains(errOut, "issues ") {
			t.Errorf("export stderr = %q", errOut)
		}
		if info, err := os.Stat(file); err != nil || info.Size() == 0 {
			t.Fatalf("archive: %v", err)
		}
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".glmcp-export-*"))
		if len(leftovers) != 0 {
			t.Errorf("temporary files left beside the archive: %v", leftovers)
		}

		out, errOut, err := b.run(t, "projects", "import", "--path", "copies/mcp", "--file", file)
		if err != nil {
			t.Fatalf("import: %v\n%s", err, errOut)
		}
		id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil {
			t.Fatalf("stdout = %q, want the project id", out)
		}
		for _, want := range []string{"imported " + file + " into copies/mcp", "repository: ", "default branch main",
			"users: ", "mapped to existing users, 0 placeholder users", "imported: ", "issues ", "merge_requests ", "notes "} {
			if !strings.Contains(errOut, want) {
				t.Errorf("import stderr = %q, want %q", errOut, want)
			}
		}
		src, dst := mustProject(t, b, "gitlab-org/gitlab-mcp"), mustProject(t, b, "copies/mcp")
		if dst.ID != id || dst.Description != src.Description || dst.DefaultBranch != src.DefaultBranch {
			t.Errorf("imported project = %+v, want the attributes of %+v", dst, src)
		}
		s := b.store(t)
		for _, table := range []string{"issues", "merge_requests", "notes", "ci_pipelines", "releases"} {
			q := "SELECT count(*) FROM " + table + " WHERE project_id = ?"
			var a, c int64
			s.DB().Raw(q, src.ID).Scan(&a)
			s.DB().Raw(q, dst.ID).Scan(&c)
			if a == 0 || a != c {
				t.Errorf("%s: %d in the copy, %d in the source", table, c, a)
			}
		}

		count := func() int64 {
			var n int64
			s.DB().Raw("SELECT (SELECT count(*) FROM projects) + (SELECT count(*) FROM users) + (SELECT count(*) FROM issues)").Scan(&n)
			return n
		}
		before := count()
		bad := filepath.Join(t.TempDir(), "bad.tar.gz")
		if err := os.WriteFile(bad, []byte("not gzip"), 0o600); err != nil {
			t.Fatal(err)
		}
		b.wantErr(t, []string{`--file "` + bad + `"`, "archive: not a gzip file"}, "projects", "import", "--path", "copies/bad", "--file", bad)
		b.wantErr(t, []string{"project copies/mcp already exists"}, "projects", "import", "--path", "copies/mcp", "--file", file)
		b.wantErr(t, []string{`"from" or "file"`}, "projects", "import", "--path", "copies/x", "--file", file, "--from", t.TempDir())
		b.wantErr(t, []string{"--description: an archive brings its project's description"}, "projects", "import", "--path", "copies/x", "--file", file, "--description", "d")
		b.wantErr(t, []string{"--as goes with --file"}, "projects", "import", "--path", "copies/x", "--from", t.TempDir(), "--as", "bob")
		b.wantErr(t, []string{`no user "nobody"`}, "projects", "import", "--path", "copies/x", "--file", file, "--as", "nobody")
		b.wantErr(t, []string{`no project "copies/none"`}, "projects", "export", "--path", "copies/none", "--file", file)
		if after := count(); after != before {
			t.Errorf("refused commands changed the store: %d rows, were %d", after, before)
		}
		if left, _ := filepath.Glob(filepath.Join(b.repositories(), "+tmp", "*")); len(left) != 0 {
			t.Errorf("the imports left %v in the staging directory", left)
		}

		// A non-administrator's import: placeholders, the importer a maintainer.
		_, errOut, err = b.run(t, "projects", "import", "--path", "copies/bobs", "--file", file, "--as", "bob", "--visibility", "private")
		if err != nil {
			t.Fatalf("import --as bob: %v\n%s", err, errOut)
		}
		if !strings.Contains(errOut, "0 mapped to existing users") || strings.Contains(errOut, ", 0 placeholder users") {
			t.Errorf("import --as bob stderr = %q, want placeholders only", errOut)
		}
		if p := mustProject(t, b, "copies/bobs"); p.Visibility != models.VisibilityPrivate {
			t.Errorf("visibility = %s, want private (--visibility)", p.Visibility)
		}
		if _, err := s.Groups.FindProjectMember(context.Background(), mustProject(t, b, "copies/bobs").ID, userID(t, b, "bob")); err != nil {
			t.Errorf("bob is no member of his import: %v", err)
		}
	})
}

func userID(t *testing.T, b *backend, username string) int64 {
	t.Helper()
	u, err := b.store(t).Users.FindUserByUsername(context.Background(), username)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
