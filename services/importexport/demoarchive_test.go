package importexport_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// demoArchive is the project export archive the project ships: the demo
// project gitlab-org/gitlab-mcp as our exporter writes it.
var demoArchive = filepath.Join("..", "demo", "_archives", "gitlab-mcp.tar.gz")

var updateDemoArchive = flag.Bool("update-demo-archive", false, "rewrite "+demoArchive+" from the demo world")

// Ensure the shipped demo archive imports into a store holding the demo
// world (its users mapped by username) as a project holding exactly what
// the demo project holds, its repository included: the archive is the
// demo project, current. -update-demo-archive rewrites it.
func TestDemoArchive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w, err := demo.Seed(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		x := &seeded{s: s, repos: storetest.Repositories(t, s), w: w, p: w.Projects[demo.ProjectMCP]}
		if *updateDemoArchive && s.Dialect() == "sqlite" {
			b, err := os.ReadFile(x.export(t, x.p))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(demoArchive, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sum, err := x.importFile(t, demoArchive, "demo-archive/gitlab-mcp", zeroLimits, nil)
		if err != nil {
			t.Fatalf("import %s: %v", demoArchive, err)
		}
		if sum.Placeholders != 0 {
			t.Errorf("placeholders = %d, want every author mapped to a demo user", sum.Placeholders)
		}
		if want, got := records(t, s, x.p.ID), records(t, s, sum.Project.ID); want != got {
			t.Errorf("the shipped archive differs from the demo project (rewrite it with -update-demo-archive):\n%s", diffLines(want, got))
		}
		if r1, r2 := refs(t, x.repos.Path(x.p.ID)), refs(t, x.repos.Path(sum.Project.ID)); r1 != r2 {
			t.Errorf("repository refs:\n%s\nwant\n%s", r2, r1)
		}
	})
}
