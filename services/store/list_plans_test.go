package store_test

import (
	"context"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The filtered lists read one page of an index in the page's order
// (migration 20261207203500_list_indexes): no sort of the project's rows,
// no walk of another index. SQLite's plans do not depend on statistics
// here, so they are pinned exactly; PostgreSQL's are checked on a large
// project by TestSearchScale and scripts/bench store.
func TestListPlans_sqlite(t *testing.T) {
	s := storetest.OpenSQLite(t)
	admin := mustCreateUser(t, s, "admin")
	admin.Admin = true
	p := mustCreateProject(t, s, "plans", "lists")
	rec := recordStatements(t, s)
	for _, c := range []struct {
		name, table, index string
		run                func(ctx context.Context) error
	}{
		{"list_merge_requests", "merge_requests", "index_merge_requests_on_project_id_and_id", func(ctx context.Context) error {
			_, _, err := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID}, Limit: 20})
			return err
		}},
		{"list_merge_requests state", "merge_requests", "index_merge_requests_on_project_id_and_state", func(ctx context.Context) error {
			_, _, err := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID}, State: models.MergeRequestMerged, Limit: 20})
			return err
		}},
		{"list_work_items state", "issues", "index_issues_on_project_id_and_state_and_created_at_and_id", func(ctx context.Context) error {
			_, err := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: admin, ProjectID: p.ID, State: models.IssueClosed, Limit: 20})
			return err
		}},
	} {
		var runErr error
		stmts := rec.during(func(ctx context.Context) { runErr = c.run(ctx) })
		if runErr != nil {
			t.Fatalf("%s: %v", c.name, runErr)
		}
		found := false
		for _, st := range stmts {
			if !strings.Contains(st.sql, "FROM `"+c.table+"`") {
				continue
			}
			found = true
			var plan []string
			rows, err := s.DB().Raw("EXPLAIN QUERY PLAN "+st.sql, st.vars...).Rows()
			if err != nil {
				t.Fatalf("%s: EXPLAIN: %v", c.name, err)
			}
			for rows.Next() {
				var id, parent, notUsed int
				var detail string
				if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			got := strings.Join(plan, "\n")
			if !strings.Contains(got, "USING INDEX "+c.index+" ") || strings.Contains(got, "TEMP B-TREE") {
				t.Errorf("%s: plan of %s\n%s\nwant a search of %s in order (no temporary B-tree)", c.name, st.sql, got, c.index)
			}
		}
		if !found {
			t.Errorf("%s: no statement on %s recorded", c.name, c.table)
		}
	}
}
