package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// openWithRepositories opens a migrated store on dsn that creates
// repositories in a fresh storage.
func openWithRepositories(t *testing.T, dsn string) (*store.Store, *repository.Storage) {
	t.Helper()
	repos, err := repository.OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Background housekeeping stops before the directory goes.
	t.Cleanup(func() { repos.Close() })
	ctx := context.Background()
	s, err := store.Open(ctx, dsn, store.Options{Repositories: repos})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s, repos
}

// Ensure a project is created with its repository, and that a repository
// that cannot be created leaves no project behind.
func TestCreateProject_repository(t *testing.T) {
	for name, dsn := range map[string]func(testing.TB) string{"postgres": storetest.PostgresDSN, "sqlite": storetest.SQLitePath} {
		t.Run(name, func(t *testing.T) {
			s, repos := openWithRepositories(t, dsn(t))
			ctx := context.Background()
			p := mustCreateProject(t, s, "acme", "rockets")
			if !repos.Exists(p.ID) {
				t.Fatalf("no repository for project %d at %s", p.ID, repos.Path(p.ID))
			}
			r, err := repos.Open(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if b, err := r.DefaultBranch(ctx); err != nil || b != "main" {
				t.Fatalf("default branch = %q, %v", b, err)
			}

			// Block the hashed directory: creation fails, nothing is stored.
			before := countRows(t, s, "projects")
			if err := os.RemoveAll(filepath.Join(repos.Root(), "@hashed")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repos.Root(), "@hashed"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			g, err := s.Groups.FindGroupByFullPath(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			q := &models.Project{Name: "x", Path: "x", NamespaceID: g.ID}
			if err := s.Projects.CreateProject(ctx, q); err == nil {
				t.Fatal("CreateProject succeeded without a repository")
			}
			if n := countRows(t, s, "projects"); n != before {
				t.Fatalf("projects: %d before, %d after a failed creation", before, n)
			}

			// EnsureRepositories creates what is missing (a restored database).
			if err := os.Remove(filepath.Join(repos.Root(), "@hashed")); err != nil {
				t.Fatal(err)
			}
			n, err := s.Projects.EnsureRepositories(ctx)
			if err != nil || n != 1 || !repos.Exists(p.ID) {
				t.Fatalf("EnsureRepositories = %d, %v", n, err)
			}
			if n, err := s.Projects.EnsureRepositories(ctx); err != nil || n != 0 {
				t.Fatalf("EnsureRepositories again = %d, %v", n, err)
			}
		})
	}
}
