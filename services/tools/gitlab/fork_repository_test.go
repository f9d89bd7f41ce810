package gitlab_test

import (
	"context"
	"errors"
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

// failingFork is a repository storage whose CreateFork copies the history
// and then fails (a disk that fills up at the end).
type failingFork struct{ *repository.Storage }

func (f failingFork) CreateFork(ctx context.Context, sourceID, targetID int64, branch string) (*repository.ImportResult, error) {
	if _, err := f.Storage.CreateFork(ctx, sourceID, targetID, branch); err != nil {
		return nil, err
	}
	return nil, errors.New("no space left on device")
}

// conflictingFork is a repository storage whose target repository already
// has refs (a repository left behind): Storage.Create's conflict names
// the storage path.
type conflictingFork struct{ *repository.Storage }

func (f conflictingFork) CreateFork(_ context.Context, _, targetID int64, _ string) (*repository.ImportResult, error) {
	return nil, fmt.Errorf("create repository for project %d: %s already has branches: %w", targetID,
		repository.HashedPath(targetID), models.ErrConflict)
}

// TestForkRepository_atomic: a fork is one project row and one repository
// or neither: a repository copy that fails leaves no row, and a
// transaction that fails after the copy leaves no repository.
func TestForkRepository_atomic(t *testing.T) {
	errCommit := errors.New("commit failed")
	for name, tc := range map[string]struct {
		repos func(*repository.Storage) gitlab.Repositories
		inTx  func(gitlab.InTx) gitlab.InTx
		want  error
	}{
		// A server failure: the repository's text (a storage path) is
		// not the caller's to read.
		"repository copy conflicts": {
			repos: func(s *repository.Storage) gitlab.Repositories { return conflictingFork{s} },
		},
		"repository copy fails": {
			repos: func(s *repository.Storage) gitlab.Repositories { return failingFork{s} },
		},
		"transaction fails after the copy": {
			inTx: func(inner gitlab.InTx) gitlab.InTx {
				return func(ctx context.Context, fn func(tx gitlab.Families) error) error {
					return inner(ctx, func(tx gitlab.Families) error {
						if err := fn(tx); err != nil {
							return err
						}
						return errCommit
					})
				}
			},
			want: errCommit,
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := storetest.Open(t)
			dw, err := demo.Seed(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			storage := st.Projects.Repositories().(*repository.Storage)
			var repos gitlab.Repositories = storage
			if tc.repos != nil {
				repos = tc.repos(storage)
			}
			inTx := gitlab.Transactions(st)
			if tc.inTx != nil {
				inTx = tc.inTx(inTx)
			}
			svc, err := tools.NewService(st.Tools, gitlab.Tools(gitlab.Deps{Store: gitlab.FamiliesOf(st), InTx: inTx, Repositories: repos}), tools.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := svc.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			var maxID int64
			if err := st.DB().Raw("SELECT coalesce(max(id), 0) FROM projects").Scan(&maxID).Error; err != nil {
				t.Fatal(err)
			}
			root := &models.Identity{User: dw.Root, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
			res, err := svc.Call(ctx, tools.CallRequest{Scope: models.Scope{Edition: models.EditionCE, Identity: root}, Name: "fork_repository",
				Arguments: []byte(`{"id":"gitlab-org/gitlab-mcp","namespace_path":"acme","path":"atomic"}`)})
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
			} else if err == nil && !res.IsError {
				t.Fatalf("the fork succeeded: %s", res.Text)
			}
			if err == nil && (strings.Contains(res.Text, "@hashed") || strings.Contains(res.Text, "no space")) {
				t.Errorf("the result carries the repository's text: %s", res.Text)
			}
			if _, err := st.Projects.FindProjectByPath(ctx, "acme/atomic"); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("project row after a failed fork: %v", err)
			}
			for id := maxID + 1; id <= maxID+3; id++ {
				if storage.Exists(id) {
					t.Errorf("repository of project %d left behind", id)
				}
			}
		})
	}
}

// groupCounter counts FindGroupByID, the lookup of a group named by
// namespace_id, wherever the tool service or the tools make it.
type groupCounter struct {
	gitlab.GroupFamily
	n *atomic.Int32
}

func (c groupCounter) FindGroupByID(ctx context.Context, id int64) (*models.Group, error) {
	c.n.Add(1)
	return c.GroupFamily.FindGroupByID(ctx, id)
}

// TestForkRepository_targetGroupOnce: fork_repository's Target finds the
// target group once, for the tool rules and the tool both (before it had
// one, the rules looked namespace_id's group up and then the tool again),
// and the group's rules govern the fork.
func TestForkRepository_targetGroupOnce(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	dw, err := demo.Seed(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int32
	repos, _ := st.Projects.Repositories().(gitlab.Repositories)
	families := gitlab.FamiliesOf(st)
	families.Groups = groupCounter{families.Groups, &lookups}
	svc, err := tools.NewService(st.Tools, gitlab.Tools(gitlab.Deps{Store: families,
		InTx: gitlab.Transactions(st), PublicURL: publicURL, Repositories: repos}),
		tools.Options{Rules: st.Tools, DefaultWriteRule: models.RuleAllow})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	acme, err := st.Groups.FindGroupByFullPath(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	call := func(args string) *tools.Result {
		t.Helper()
		res, err := svc.Call(ctx, tools.CallRequest{Scope: models.Scope{Edition: models.EditionCE,
			Identity: &models.Identity{User: dw.Root, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}},
			Name: "fork_repository", Arguments: []byte(args)})
		if err != nil {
			t.Fatalf("server error: %v", err)
		}
		return res
	}
	if res := call(`{"id":"gitlab-org/gitlab-mcp","namespace_id":` + itoa(acme.ID) + `,"path":"counted"}`); res.IsError {
		t.Fatalf("isError: %s", res.Text)
	}
	if n := lookups.Load(); n != 1 {
		t.Errorf("%d lookups of the target group by id, want 1", n)
	}
	if err := st.Tools.SetToolRule(ctx, &models.ToolRule{NamespaceID: &acme.ID, Tool: "fork_repository", Rule: models.RuleDeny}); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]string{
		"by id": `{"id":"gitlab-org/gitlab-mcp","namespace_id":` + itoa(acme.ID) + `,"path":"denied"}`,
		// Both named: namespace_path's group governs, before the tool
		// refuses the pair (as when the rules read the arguments).
		"by path beside an id": `{"id":"gitlab-org/gitlab-mcp","namespace_path":"acme","namespace_id":1,"path":"denied"}`,
		// A missing source is still a call into acme.
		"missing source": `{"id":"acme/nope","namespace_path":"acme"}`,
	} {
		if res := call(args); !res.IsError || !strings.Contains(res.Text, "acme") || strings.Contains(res.Text, "Not Found") ||
			strings.Contains(res.Text, "exactly one") {
			t.Errorf("%s, a deny on the target group: isError %v, %q, want the rule's refusal naming acme", name, res.IsError, res.Text)
		}
	}
}
