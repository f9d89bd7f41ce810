package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Ensure a generated archive, in GitLab's own shape (./-prefixed entries,
// jobs under stages[].statuses, label links carrying their label, notes
// their author's name), imports whole: every record counted, what glmcp
// does not model counted as skipped, one placeholder per unknown user.
func TestGenerated_imports(t *testing.T) {
	s := storetest.OpenSQLite(t)
	repos := storetest.Repositories(t, s)
	file := filepath.Join(t.TempDir(), "gen.tar.gz")
	if err := run(opts{issues: 30, mrs: 7, notes: 2, pipelines: 4, users: 3, out: file}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := importexport.Read(ctx, repos.Git(), file, t.TempDir(), importexport.Limits{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	defer a.Close()
	sum, err := importexport.Import(ctx, s, repos, a, importexport.ImportOptions{GroupPath: "gen", ProjectPath: "small",
		CreateProject: func(ctx context.Context, tx *store.Store, group string, p *models.Project) (*models.Project, error) {
			g := &models.Group{Name: group, Path: group, Visibility: models.VisibilityPrivate}
			if err := tx.Projects.CreateGroup(ctx, g); err != nil && !errors.Is(err, models.ErrConflict) {
				return nil, err
			}
			p.NamespaceID = g.ID
			return p, tx.Projects.CreateProject(ctx, p)
		}})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	want := map[string]int{"issues": 30, "merge_requests": 7, "notes": 30*2 + 7*3, "ci_pipelines": 4, "jobs": 12,
		"labels": 6, "milestones": 5, "approvals": 7, "releases": 1, "release links": 1}
	for k, v := range want {
		if sum.Imported[k] != v {
			t.Errorf("imported %s = %d, want %d (summary %v)", k, sum.Imported[k], v, sum.Imported)
		}
	}
	if sum.Skipped["protected_branches"] != 1 || sum.Skipped["resource_state_events"] != 30 || sum.Skipped["award_emoji"] != 30*2+7*2 {
		t.Errorf("skipped = %v", sum.Skipped)
	}
	if sum.Placeholders != 3 || sum.Repository == nil || len(sum.Repository.Branches) != 8 || sum.Repository.DefaultBranch != "main" {
		t.Errorf("placeholders %d, repository %+v", sum.Placeholders, sum.Repository)
	}
	if sum.Project.Description != "A generated project — ünïcødé 🚀" {
		t.Errorf("description = %q", sum.Project.Description)
	}
}
