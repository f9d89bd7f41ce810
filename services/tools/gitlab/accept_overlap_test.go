package gitlab_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// overlap is shared by every overlappingStore of one world (the world
// wraps its store and each transaction anew).
type overlap struct {
	mu      sync.Mutex
	during  func() // run once, inside the first MergeMergeRequest
	armed   atomic.Bool
	locking chan struct{} // a LockMergeRequest while armed
}

// overlappingStore runs o.during inside the winner's transaction, after
// git's target branch moved and before the store records the merge.
type overlappingStore struct {
	gitlab.MergeRequestFamily
	o *overlap
}

func (s *overlappingStore) MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error) {
	s.o.mu.Lock()
	f := s.o.during
	s.o.during = nil
	s.o.mu.Unlock()
	if f != nil {
		f()
	}
	return s.MergeRequestFamily.MergeMergeRequest(ctx, projectID, iid, m)
}

func (s *overlappingStore) LockMergeRequest(ctx context.Context, projectID, iid int64) (*models.MergeRequest, error) {
	if s.o.armed.Load() {
		select {
		case s.o.locking <- struct{}{}:
		default:
		}
	}
	return s.MergeRequestFamily.LockMergeRequest(ctx, projectID, iid)
}

// An accept that read the merge request open and is overtaken by another
// accept that merges it is told it lost (a Conflict), as doc/tools.md
// says and as GitLab does (its tool answers already_merged only when it
// reads the merge request merged); before, it found the winner's merge
// record, waited for the winner and answered 200 already_merged. A call
// made after the merge finished still gets already_merged.
func TestAcceptMergeRequest_overlappingCallerGetsConflict(t *testing.T) {
	o := &overlap{locking: make(chan struct{}, 1)}
	st := storetest.Open(t)
	w := newWorldWith(t, st, func(f gitlab.Families) gitlab.Families {
		f.MergeRequests = &overlappingStore{MergeRequestFamily: f.MergeRequests, o: o}
		return f
	})
	ctx := context.Background()
	const path = "gitlab-org/gitlab-mcp"
	p, err := st.Projects.FindProjectByPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	c := w.ok(t, w.Root, "add_commit", map[string]any{"project_id": path, "branch": "overlap", "start_branch": "main",
		"commit_message": "m", "actions": []any{map[string]any{"action": "create", "file_path": "overlap.txt", "content": "x\n"}}})
	head := c["commit"].(map[string]any)["sha"].(string)
	mr := &models.MergeRequest{ProjectID: p.ID, Title: "overlap", SourceBranch: "overlap", TargetBranch: "main", AuthorID: w.Root.ID}
	if err := st.MergeRequests.CreateMergeRequest(ctx, mr); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"project_id": path, "merge_request_iid": mr.IID, "sha": head}

	var second *tools.Result
	var secondErr error
	secondDone := make(chan struct{})
	reachedLock := false
	o.during = func() {
		o.armed.Store(true)
		go func() {
			defer close(secondDone)
			second, secondErr = w.try(w.Root, "accept_merge_request", args)
		}()
		select {
		case <-o.locking: // the second call read it open and waits for the row
			reachedLock = true
		case <-time.After(3 * time.Second):
		}
		o.armed.Store(false)
	}
	first := w.ok(t, w.Root, "accept_merge_request", args)
	<-secondDone
	if first["status"] != "merged" {
		t.Fatalf("first accept: %v", first)
	}
	if secondErr != nil {
		t.Fatalf("second accept: server error %v", secondErr)
	}
	// It began inside the first call's transaction, so it read the merge
	// request open (on PostgreSQL it then waits on the row lock; on
	// SQLite on the first's write transaction).
	t.Logf("the second accept reached the row lock while the first held it: %v", reachedLock)
	want := fmt.Sprintf("Conflict: merge request !%d was merged by another request meanwhile; nothing more was merged", mr.IID)
	if !second.IsError || !strings.HasPrefix(second.Text, want) {
		t.Errorf("the overlapping accept answered %v %q, want %q", second.IsError, second.Text, want)
	}
	// Begun after the merge: GitLab's already_merged.
	if after := w.ok(t, w.Root, "accept_merge_request", args); after["status"] != "already_merged" {
		t.Errorf("an accept after the merge: %v", after)
	}
	got, err := st.MergeRequests.LoadMergeRequest(ctx, p.ID, mr.IID)
	if err != nil || got.State != models.MergeRequestMerged {
		t.Fatalf("stored: %v %v", got, err)
	}
}
