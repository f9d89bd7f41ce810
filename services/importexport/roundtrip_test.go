package importexport_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Ensure a project exported and imported under another path by an
// administrator holds the same rows (ids aside) and the same repository:
// members, labels, milestones, issues with assignees and internal notes,
// merge requests with diff notes, resolutions and approvals, pipelines
// with jobs, releases with links, unicode and a 400 KB description.
func TestExportImport_roundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		file := x.export(t, x.p)
		sum, err := x.importFile(t, file, "copies/gitlab-mcp", zeroLimits, nil)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		if sum.Project.PathWithNamespace != "copies/gitlab-mcp" || sum.Project.DefaultBranch != x.p.DefaultBranch ||
			sum.Project.Description != x.p.Description || sum.Project.Visibility != x.p.Visibility {
			t.Errorf("project = %+v, want the attributes of %+v", sum.Project, x.p)
		}
		if sum.Placeholders != 0 {
			t.Errorf("placeholders = %d, want 0 (every author is a member, mapped by username)", sum.Placeholders)
		}
		want, got := records(t, s, x.p.ID), records(t, s, sum.Project.ID)
		if want != got {
			t.Errorf("imported records differ from the exported project's:\n%s", diffLines(want, got))
		}
		for _, rel := range []string{"issues", "merge_requests", "notes", "ci_pipelines", "releases", "labels", "milestones"} {
			if sum.Imported[rel] == 0 {
				t.Errorf("imported %s = 0, want the project's (summary %v)", rel, sum.Imported)
			}
		}
		if r1, r2 := refs(t, x.repos.Path(x.p.ID)), refs(t, x.repos.Path(sum.Project.ID)); r1 != r2 {
			t.Errorf("repository refs:\n%s\nwant\n%s", r2, r1)
		}
		// The copy is a new, working project: new issues continue its
		// numbers.
		ctx := context.Background()
		i := &models.Issue{ProjectID: sum.Project.ID, Title: "after the import", AuthorID: x.w.Alice.ID}
		if err := s.CreateIssue(ctx, i); err != nil {
			t.Fatal(err)
		}
		var maxIID int64
		r, _, _ := s.LoadProjectRecords(ctx, x.p.ID)
		for _, is := range r.Issues {
			maxIID = max(maxIID, is.IID)
		}
		if i.IID != maxIID+1 {
			t.Errorf("next issue iid = %d, want %d", i.IID, maxIID+1)
		}
	})
}
