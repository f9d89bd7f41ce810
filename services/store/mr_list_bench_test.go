package store_test

import (
	"context"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// BenchmarkListMergeRequests pages list_merge_requests' query over a
// project of 100,000 merge requests (and a small second project, for the
// group listing): the first page, a page resumed deep in the table
// (keyset on id), and filtered pages. Each reads at most first+1 rows, so
// time and memory per page do not grow with the table; a filter that
// matches few rows (search) reads until it has a page.
func BenchmarkListMergeRequests(b *testing.B) {
	s := storetest.OpenPostgres(b)
	ctx := context.Background()
	alice := mustCreateUser(&testing.T{}, s, "alice")
	bob := mustCreateUser(&testing.T{}, s, "bob")
	p := mustCreateProject(&testing.T{}, s, "g", "big")
	small := mustCreateProject(&testing.T{}, s, "g", "small")
	const rows = 100_000
	// One in ten merged, one in ten labelled bug, one in four by bob (one in twenty both);
	// distinct source branches (one open merge request per branch pair).
	// Inserted 10,000 at a time: each statement stays well inside the
	// store's statement deadline on a loaded machine.
	for from := 1; from <= rows; from += 10_000 {
		err := s.DB().Exec(`INSERT INTO merge_requests (project_id, iid, title, description, state, source_branch, target_branch,
       author_id, labels, created_at, updated_at)
SELECT ?, n, 'merge request ' || n, 'Change number ' || n || '.',
       CASE WHEN n % 10 = 0 THEN 'merged' ELSE 'opened' END, 'branch-' || n, 'main',
       CASE WHEN n % 4 = 0 THEN ?::bigint ELSE ?::bigint END,
       CASE WHEN n % 10 = 4 THEN '["bug"]' ELSE '["feature"]' END,
       now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval
FROM generate_series(?::int, ?::int) AS n`, p.ID, bob.ID, alice.ID, from, from+9_999).Error
		if err != nil {
			b.Fatal(err)
		}
	}
	err := s.DB().Exec(`INSERT INTO merge_requests (project_id, iid, title, source_branch, target_branch, author_id)
SELECT ?, n, 'small ' || n, 'branch-' || n, 'main', ? FROM generate_series(1, 50) AS n`, small.ID, alice.ID).Error
	if err != nil {
		b.Fatal(err)
	}
	s.DB().Exec("ANALYZE merge_requests")
	one := []int64{p.ID}
	deep := models.MergeRequestQuery{ProjectIDs: one, Limit: 100}
	for range 500 { // resume 50,000 rows in
		page, more, err := s.MergeRequests.ListMergeRequests(ctx, deep)
		if err != nil || !more {
			b.Fatalf("deep page: %v", err)
		}
		deep.BeforeID = page[len(page)-1].ID
	}
	for _, bc := range []struct {
		name string
		q    models.MergeRequestQuery
	}{
		{"first_page_20", models.MergeRequestQuery{ProjectIDs: one, Limit: 20}},
		{"resumed_page_100_at_50000", deep},
		{"group_two_projects_20", models.MergeRequestQuery{ProjectIDs: []int64{p.ID, small.ID}, Limit: 20}},
		{"merged_20", models.MergeRequestQuery{ProjectIDs: one, State: models.MergeRequestMerged, Limit: 20}},
		{"author_bob_labelled_bug_20", models.MergeRequestQuery{ProjectIDs: one, AuthorID: bob.ID, Labels: []string{"bug"}, Limit: 20}},
		{"search_one_match", models.MergeRequestQuery{ProjectIDs: one, Search: "Change number 77777.", Limit: 20}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.MergeRequests.ListMergeRequests(ctx, bc.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
