package gitlab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// branchCounting is a repository storage whose repositories count their
// Branches calls.
type branchCounting struct {
	*repository.Storage
	calls *atomic.Int64
}

func (b branchCounting) Repository(ctx context.Context, projectID int64) (repository.Repository, error) {
	r, err := b.Storage.Repository(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return countingRepo{r, b.calls}, nil
}

type countingRepo struct {
	repository.Repository
	calls *atomic.Int64
}

func (c countingRepo) Branches(ctx context.Context) ([]repository.Branch, error) {
	c.calls.Add(1)
	return c.Repository.Branches(ctx)
}

// TestListCommits_emptyRepository: list_commits pages without listing the
// branches (a page of a repository with thousands of branches costs its
// commits, not its branches); only a ref that does not resolve asks
// whether the repository is empty, which lists no commits whatever the
// ref, where another repository answers that the ref is not found.
func TestListCommits_emptyRepository(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	dw, err := demo.Seed(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	mcp := dw.Projects["gitlab-org/gitlab-mcp"]
	empty := &models.Project{Name: "Empty", Path: "empty", NamespaceID: mcp.NamespaceID, Visibility: models.VisibilityPublic, DefaultBranch: "main"}
	if err := st.Projects.CreateProject(ctx, empty); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	repos := branchCounting{st.Projects.Repositories().(*repository.Storage), &calls}
	svc, err := tools.NewService(st.Tools, gitlab.Tools(gitlab.Deps{Store: gitlab.FamiliesOf(st), InTx: gitlab.Transactions(st), Repositories: repos}), tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	root := &models.Identity{User: dw.Root, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
	list := func(args string) (*tools.Result, map[string]any) {
		t.Helper()
		res, err := svc.Call(ctx, tools.CallRequest{Scope: models.Scope{Edition: models.EditionCE, Identity: root},
			Name: "list_commits", Arguments: []byte(args)})
		if err != nil {
			t.Fatalf("list_commits %s: %v", args, err)
		}
		var out map[string]any
		if !res.IsError {
			if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
				t.Fatalf("list_commits %s: %v", args, err)
			}
		}
		return res, out
	}
	nodes := func(out map[string]any) int { return len(out["nodes"].([]any)) }

	_, page1 := list(`{"project_id":"gitlab-org/gitlab-mcp","first":1}`)
	after, _ := page1["pageInfo"].(map[string]any)["endCursor"].(string)
	if nodes(page1) != 1 || after == "" {
		t.Fatalf("page 1: %v", page1)
	}
	if _, page2 := list(fmt.Sprintf(`{"project_id":"gitlab-org/gitlab-mcp","first":1,"after":%q}`, after)); nodes(page2) != 1 {
		t.Fatalf("page 2: %v", page2)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("two pages listed the branches %d times, want 0", n)
	}

	res, _ := list(`{"project_id":"gitlab-org/gitlab-mcp","ref_name":"nope"}`)
	if !res.IsError || !strings.HasPrefix(res.Text, "Ref 'nope' not found") {
		t.Errorf("an unknown ref: %+v", res)
	}
	for _, args := range []string{`{"project_id":"gitlab-org/empty"}`, `{"project_id":"gitlab-org/empty","ref_name":"nope"}`} {
		if res, out := list(args); res.IsError || nodes(out) != 0 || out["pageInfo"].(map[string]any)["hasNextPage"] != false {
			t.Errorf("empty repository, %s: %s", args, res.Text)
		}
	}
}
