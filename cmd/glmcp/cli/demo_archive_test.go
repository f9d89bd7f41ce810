package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// Ensure the documented way to load the shipped demo archive works: after
// `seed --demo`, `projects import --file services/demo/_archives/gitlab-mcp.tar.gz`
// makes a project whose authors are the demo users and whose rows are the
// demo project's.
func TestProjects_importShippedDemoArchive(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.mustRun(t, "seed", "--demo")
		file := filepath.Join("..", "..", "..", "services", "demo", "_archives", "gitlab-mcp.tar.gz")
		_, errOut, err := b.run(t, "projects", "import", "--path", "demo/gitlab-mcp", "--file", file)
		if err != nil {
			t.Fatalf("import: %v\n%s", err, errOut)
		}
		if !strings.Contains(errOut, "mapped to existing users, 0 placeholder users") || !strings.Contains(errOut, "default branch main") {
			t.Errorf("import stderr = %q", errOut)
		}
		src, dst := mustProject(t, b, "gitlab-org/gitlab-mcp"), mustProject(t, b, "demo/gitlab-mcp")
		s := b.store(t)
		for _, table := range []string{"issues", "merge_requests", "notes", "ci_pipelines", "releases", "labels", "milestones"} {
			q := "SELECT count(*) FROM " + table + " WHERE project_id = ?"
			var a, c int64
			s.DB().Raw(q, src.ID).Scan(&a)
			s.DB().Raw(q, dst.ID).Scan(&c)
			if a == 0 || a != c {
				t.Errorf("%s: %d in the demo project, %d imported from the archive", table, a, c)
			}
		}
	})
}
