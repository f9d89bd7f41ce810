package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// list_merge_requests with a search answers the same pages whichever way
// PostgreSQL reads the matches: few (by the planner's estimate) through
// the trigram indexes and a sort, many by the newest rows in id order
// (pgFewMatches). Both ways are pinned here against the rows, on both
// stores, with the page boundaries of a keyset walk.
func TestListMergeRequests_searchFewAndMany(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		author := mustCreateUser(t, s, "author")
		p := mustCreateProject(t, s, "mrs", "search")
		const n = 3000
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		r := &store.ProjectRecords{}
		for k := range n {
			t := at.Add(time.Duration(k) * time.Second)
			r.MergeRequests = append(r.MergeRequests, store.RecordMergeRequest{MergeRequest: models.MergeRequest{
				IID: int64(k + 1), Title: fmt.Sprintf("Merge request %d", k+1), Description: strings.Repeat("Changes. ", 50),
				State: models.MergeRequestOpened, SourceBranch: fmt.Sprintf("topic-%d", k), TargetBranch: "main",
				AuthorID: author.ID, CreatedAt: t, UpdatedAt: t}})
		}
		if err := s.WithTx(ctx, func(tx *store.Store) error { return tx.Imports.InsertProjectRecords(ctx, p.ID, r) }); err != nil {
			t.Fatal(err)
		}
		if err := s.Imports.AnalyzeBulkWrite(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			term string
			few  bool // PostgreSQL: the trigram indexes and a sort
		}{{"Merge request 42", true}, {"merge REQUEST 1", true}, {"MERGE request", false}, {"changes", false}, {"nothing like it", true}} {
			var want []int64 // iids newest first
			for k := n; k >= 1; k-- {
				if strings.Contains(strings.ToLower(fmt.Sprintf("Merge request %d", k)+" "+strings.Repeat("Changes. ", 50)), strings.ToLower(c.term)) {
					want = append(want, int64(k))
				}
			}
			if s.Dialect() == "postgres" {
				if got := store.PGFewMatches(ctx, s, p.ID, c.term); got != c.few {
					t.Errorf("%q: few matches %v, want %v", c.term, got, c.few)
				}
			}
			var got []int64
			before := int64(0)
			for page := 0; page < 4; page++ {
				mrs, more, err := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID},
					Search: c.term, Limit: 20, BeforeID: before})
				if err != nil {
					t.Fatalf("%q: %v", c.term, err)
				}
				for _, m := range mrs {
					got = append(got, m.IID)
				}
				if !more {
					break
				}
				before = mrs[len(mrs)-1].ID
			}
			if len(want) > 80 {
				want = want[:80]
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q: iids %v, want %v", c.term, got, want)
			}
		}
	})
}
