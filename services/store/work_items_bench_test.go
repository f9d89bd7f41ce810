package store_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// BenchmarkListWorkItems pages list_work_items' query over a project of
// 100,000 work items: the first page, a page resumed deep in the table
// (keyset), and a filtered page. Each reads at most first+1 rows, so time
// and memory per page do not grow with the table.
func BenchmarkListWorkItems(b *testing.B) {
	s := storetest.OpenPostgres(b)
	ctx := context.Background()
	alice := mustCreateUser(&testing.T{}, s, "alice")
	p := mustCreateProject(&testing.T{}, s, "g", "big")
	const rows = 100_000
	err := s.DB().Exec(`INSERT INTO issues (project_id, iid, title, author_id, work_item_type_id, labels, created_at, updated_at)
SELECT ?, n, 'work item ' || n, ?, CASE WHEN n % 3 = 0 THEN 5 ELSE 1 END,
       CASE WHEN n % 10 = 0 THEN '["bug"]' ELSE '[]' END,
       now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval
FROM generate_series(1, ?) AS n`, p.ID, alice.ID, rows).Error
	if err != nil {
		b.Fatal(err)
	}
	s.DB().Exec("ANALYZE issues")
	first, err := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Limit: 20})
	if err != nil || len(first.Items) != 20 {
		b.Fatalf("first page: %v", err)
	}
	deep := models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Limit: 100}
	for range 5 { // resume 500 rows in, then jump by keyset
		pg, err := s.Issues.ListWorkItems(ctx, deep)
		if err != nil {
			b.Fatal(err)
		}
		deep.AfterKey, deep.AfterID = pg.EndKey, pg.EndID
	}
	for _, bc := range []struct {
		name string
		q    models.WorkItemQuery
	}{
		{"first_page_20", models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Limit: 20}},
		{"resumed_page_100", deep},
		{"tasks_labelled_bug_20", models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Limit: 20,
			Types: []models.WorkItemTypeID{models.TypeTask}, LabelNames: []string{"bug"}}},
		{"title_asc_20", models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Limit: 20, Sort: models.SortTitleAsc}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Issues.ListWorkItems(ctx, bc.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
