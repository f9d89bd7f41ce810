package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// TestStore_MergeMergeRequest: a merge is recorded once, on an open merge
// request only; concurrent records of one merge request leave one merge.
func TestStore_MergeMergeRequest(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "p")
		mr := &models.MergeRequest{ProjectID: p.ID, Title: "Fix", SourceBranch: "fix", TargetBranch: "main", AuthorID: alice.ID}
		wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)
		m := models.MergeRequestMerge{HeadSHA: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", DiffBaseSHA: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			MergeCommitSHA: "cccccccccccccccccccccccccccccccccccccccc", MergeUserID: alice.ID, Squash: true}
		const racers = 4
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.MergeRequests.MergeMergeRequest(ctx, p.ID, mr.IID, m)
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else if !errors.Is(err, models.ErrConflict) {
				t.Errorf("MergeMergeRequest = %v, want success or a conflict", err)
			}
		}
		if wins != 1 {
			t.Errorf("%d records of one merge succeeded, want 1 (%v)", wins, errs)
		}
		back, err := s.MergeRequests.LoadMergeRequest(ctx, p.ID, mr.IID)
		wantErr(t, "LoadMergeRequest", err, nil)
		if back.State != models.MergeRequestMerged || back.MergedAt == nil || back.SHA != m.HeadSHA || back.DiffBaseSHA != m.DiffBaseSHA ||
			back.MergeCommitSHA != m.MergeCommitSHA || back.MergeUserID == nil || *back.MergeUserID != alice.ID || !back.Squash {
			t.Errorf("merged merge request = %+v", back)
		}
		_, err = s.MergeRequests.MergeMergeRequest(ctx, p.ID, 99, m)
		wantErr(t, "MergeMergeRequest(missing)", err, models.ErrNotFound)

	})
}
