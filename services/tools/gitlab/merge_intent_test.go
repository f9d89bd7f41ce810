package gitlab_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// crashingMerge fails MergeMergeRequest while armed: what a process killed
// after the target branch moved, before the store recorded the merge,
// leaves (git merged, the store not).
type crashingMerge struct {
	gitlab.MergeRequestFamily
	armed *atomic.Bool
}

var errKilled = errors.New("killed before the store recorded the merge")

func (s *crashingMerge) MergeMergeRequest(ctx context.Context, projectID, iid int64, m models.MergeRequestMerge) (*models.MergeRequest, error) {
	if s.armed.Load() {
		return nil, errKilled
	}
	return s.MergeRequestFamily.MergeMergeRequest(ctx, projectID, iid, m)
}

// A merge that reached git and not the store is finished by the next
// get_merge_request (and by SettleMerges, what glmcp runs at start): the
// merge request reads merged, the store holds git's merge commit, and
// accepting again merges nothing more.
func TestMergeIntent_finishedAfterACrash(t *testing.T) {
	var armed atomic.Bool
	st := storetest.Open(t)
	w := newWorldWith(t, st, func(f gitlab.Families) gitlab.Families {
		f.MergeRequests = &crashingMerge{MergeRequestFamily: f.MergeRequests, armed: &armed}
		return f
	})
	ctx := context.Background()
	const path = "gitlab-org/gitlab-mcp"
	p, err := st.Projects.FindProjectByPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	repos := storetest.Repositories(t, st)
	crash := func(branch string) (int64, string) {
		t.Helper()
		c := w.ok(t, w.Root, "add_commit", map[string]any{"project_id": path, "branch": branch, "start_branch": "main",
			"commit_message": "m", "actions": []any{map[string]any{"action": "create", "file_path": branch + ".txt", "content": "x\n"}}})
		head := c["commit"].(map[string]any)["sha"].(string)
		mr := &models.MergeRequest{ProjectID: p.ID, Title: branch, SourceBranch: branch, TargetBranch: "main", AuthorID: w.Root.ID}
		if err := st.MergeRequests.CreateMergeRequest(ctx, mr); err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		_, err := w.try(w.Root, "accept_merge_request", map[string]any{"project_id": path, "merge_request_iid": mr.IID, "sha": head})
		armed.Store(false)
		if !errors.Is(err, errKilled) {
			t.Fatalf("accept with the store failing: %v", err)
		}
		if got, _ := st.MergeRequests.LoadMergeRequest(ctx, p.ID, mr.IID); got.State != models.MergeRequestOpened {
			t.Fatalf("the store says %s before recovery", got.State)
		}
		repo, err := repos.Repository(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer repo.Close()
		main, err := repo.RefHash(ctx, "refs/heads/main")
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := repo.IsAncestor(ctx, head, main); !ok {
			t.Fatalf("git's main does not hold %s", head)
		}
		return mr.IID, main
	}
	check := func(iid int64, main string) {
		t.Helper()
		got, err := st.MergeRequests.LoadMergeRequest(ctx, p.ID, iid)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != models.MergeRequestMerged || got.MergeCommitSHA != main {
			t.Fatalf("!%d: %s at %q, want merged at %s", iid, got.State, got.MergeCommitSHA, main)
		}
		if intent, _ := repos.MergeIntent(p.ID, iid); intent != nil {
			t.Errorf("!%d: the record is still there: %s", iid, intent)
		}
	}

	// On the next read.
	iid, main := crash("crash-read")
	out := w.ok(t, w.Root, "get_merge_request", map[string]any{"project_id": path, "merge_request_iid": iid})
	if out["state"] != "merged" {
		t.Fatalf("get_merge_request after the crash: %v", out["state"])
	}
	check(iid, main)
	again := w.ok(t, w.Root, "accept_merge_request", map[string]any{"project_id": path, "merge_request_iid": iid, "sha": main})
	if again["status"] != "already_merged" {
		t.Fatalf("accept again: %v", again)
	}

	// At start.
	iid, main = crash("crash-start")
	n, err := gitlab.SettleMerges(ctx, gitlab.Deps{Store: gitlab.FamiliesOf(st), InTx: gitlab.Transactions(st), Repositories: repos}, []int64{p.ID})
	if err != nil || n != 1 {
		t.Fatalf("SettleMerges = %d, %v; want 1", n, err)
	}
	check(iid, main)

	// A record whose merge never reached git (the target moved on
	// without it) is dropped, and the merge request stays open.
	mr := &models.MergeRequest{ProjectID: p.ID, Title: "never", SourceBranch: "crash-read", TargetBranch: "main", AuthorID: w.Root.ID}
	if err := st.MergeRequests.CreateMergeRequest(ctx, mr); err != nil {
		t.Fatal(err)
	}
	stray := fmt.Sprintf(`{"target":"main","new_head":"%s","merge":{}}`, "0123456789012345678901234567890123456789")
	if err := repos.WriteMergeIntent(p.ID, mr.IID, []byte(stray)); err != nil {
		t.Fatal(err)
	}
	if n, err := gitlab.SettleMerges(ctx, gitlab.Deps{Store: gitlab.FamiliesOf(st), InTx: gitlab.Transactions(st), Repositories: repos}, []int64{p.ID}); err != nil || n != 0 {
		t.Fatalf("SettleMerges with a stray record = %d, %v", n, err)
	}
	if got, _ := st.MergeRequests.LoadMergeRequest(ctx, p.ID, mr.IID); got.State != models.MergeRequestOpened {
		t.Fatalf("a merge git lacks reads %s", got.State)
	}
	if intent, _ := repos.MergeIntent(p.ID, mr.IID); intent != nil {
		t.Errorf("the stray record is still there")
	}
}
