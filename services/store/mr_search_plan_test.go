package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
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

// A search's plan question (pgFewMatches' EXPLAIN) has the store's
// statement deadline like every other statement: with the table locked
// by another session, list_merge_requests with a search answers
// ErrStoreUnavailable, not after the caller's own (much longer) deadline.
func TestListMergeRequests_searchStalledIsUnavailable(t *testing.T) {
	dsn := storetest.MigratedPostgresDSN(t)
	ctx := context.Background()
	s, err := store.Open(ctx, dsn, store.Options{StatementTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := mustCreateProject(t, s, "stall", "search")

	locker, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	locked, release := make(chan error, 1), make(chan struct{})
	go func() {
		locked <- locker.DB().Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("LOCK TABLE merge_requests IN ACCESS EXCLUSIVE MODE").Error; err != nil {
				return err
			}
			locked <- nil
			<-release
			return nil
		})
	}()
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	defer func() { close(release); <-locked }()

	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, _, err = s.MergeRequests.ListMergeRequests(cctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID}, Search: "feature", Limit: 20})
	if !errors.Is(err, models.ErrStoreUnavailable) {
		t.Fatalf("search on a locked table: %v, want ErrStoreUnavailable", err)
	}
	if cctx.Err() != nil {
		t.Fatalf("the call waited for the caller's deadline: %v", cctx.Err())
	}
}
