package gitlab_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// add_commit with start_project: a new branch of a fork that starts from
// a branch of the project it was forked from (or one further up), the
// start commit's objects copied into the fork; anything else refused with
// nothing written. Checked with the git command line.

// gitIn runs git on the bare repository dir and returns its trimmed output.
func gitIn(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// hasObject reports whether the repository at dir has object sha.
func hasObject(dir, sha string) bool {
	return exec.Command("git", "--git-dir", dir, "cat-file", "-e", sha).Run() == nil
}

// forkSetup is a fork of gitlab-org/gitlab-mcp (acme/mcp-fork, alice a
// Developer of it) and a fork of that fork (gitlab-org/mcp-fork-2), whose
// upstream has moved on since (its main has a commit neither fork has).
type forkSetup struct {
	w                *world
	repos            *repository.Storage
	upstream         *models.Project
	fork, forkOfFork *models.Project
	upstreamHead     string // gitlab-org/gitlab-mcp's main, after the forks
}

func newForkSetup(t *testing.T) *forkSetup {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t)
	s := &forkSetup{w: w, repos: w.st.Projects.Repositories().(*repository.Storage), upstream: w.project("gitlab-org/gitlab-mcp")}
	w.ok(t, w.Root, "fork_repository", map[string]any{"id": "gitlab-org/gitlab-mcp", "namespace_path": "acme",
		"path": "mcp-fork", "name": "MCP fork"})
	w.ok(t, w.Root, "fork_repository", map[string]any{"id": "acme/mcp-fork", "namespace_path": "gitlab-org",
		"path": "mcp-fork-2", "name": "MCP fork 2"})
	var err error
	if s.fork, err = w.st.Projects.FindProjectByPath(ctx, "acme/mcp-fork"); err != nil {
		t.Fatal(err)
	}
	if s.forkOfFork, err = w.st.Projects.FindProjectByPath(ctx, "gitlab-org/mcp-fork-2"); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := w.st.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: s.fork.ID, UserID: w.Alice.ID,
		AccessLevel: models.Developer, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	s.upstreamHead = s.moveUpstream(t, "upstream.txt")
	return s
}

// moveUpstream commits a new file on the upstream's main and returns the
// new head, which no fork has.
func (s *forkSetup) moveUpstream(t *testing.T, file string) string {
	t.Helper()
	c := s.w.ok(t, s.w.Root, "add_commit", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "branch": "main",
		"commit_message": "Upstream moves on: " + file, "actions": []any{
			map[string]any{"action": "create", "file_path": file, "content": "upstream " + file + "\n"},
			map[string]any{"action": "create", "file_path": "dir/" + file, "content": "nested " + file + "\n"},
		}})
	sha := c["commit"].(map[string]any)["sha"].(string)
	for _, p := range []*models.Project{s.fork, s.forkOfFork} {
		if hasObject(s.repos.Path(p.ID), sha) {
			t.Fatalf("%s already has the upstream's new commit", p.PathWithNamespace)
		}
	}
	return sha
}

func (s *forkSetup) dir(p *models.Project) string { return s.repos.Path(p.ID) }

// refsAndObjects is what git sees of the repository at dir: its refs and
// how many objects it holds.
func refsAndObjects(t *testing.T, dir string) string {
	t.Helper()
	return gitIn(t, dir, "for-each-ref", "--format=%(refname) %(objectname)") + "\n" +
		gitIn(t, dir, "count-objects", "-v")
}

func commitArgs(project, branch string, kv ...any) map[string]any {
	args := map[string]any{"project_id": project, "branch": branch, "commit_message": "Start from upstream",
		"actions": []any{map[string]any{"action": "create", "file_path": "fork-" + branch + ".txt", "content": "fork\n"}}}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i].(string)] = kv[i+1]
	}
	return args
}

func TestAddCommit_startProjectUpstream(t *testing.T) {
	s := newForkSetup(t)
	w := s.w
	forkDir := s.dir(s.fork)
	before := gitIn(t, forkDir, "for-each-ref", "--format=%(refname) %(objectname)")

	// Alice, a Developer of the fork, starts a branch from the upstream's
	// main (by path), with a partial edit of a file the upstream added.
	args := commitArgs("acme/mcp-fork", "from-upstream", "start_project", "gitlab-org/gitlab-mcp", "start_branch", "main")
	args["actions"] = append(args["actions"].([]any), map[string]any{"action": "update", "file_path": "upstream.txt",
		"old_str": "upstream upstream", "new_str": "forked upstream"})
	c := w.ok(t, w.Alice, "add_commit", args)
	sha := c["commit"].(map[string]any)["sha"].(string)
	if got := c["commit"].(map[string]any)["webUrl"]; got != publicURL+"/acme/mcp-fork/-/commit/"+sha {
		t.Errorf("webUrl = %v", got)
	}
	if got := gitIn(t, forkDir, "rev-parse", "refs/heads/from-upstream"); got != sha {
		t.Fatalf("from-upstream = %s, want the new commit %s", got, sha)
	}
	if got := gitIn(t, forkDir, "rev-parse", sha+"^"); got != s.upstreamHead {
		t.Errorf("parent = %s, want the upstream's head %s", got, s.upstreamHead)
	}
	// The fork holds the upstream's whole history below the commit.
	if got, want := gitIn(t, forkDir, "log", "--format=%H", sha+"^"), gitIn(t, s.dir(s.upstream), "log", "--format=%H", "main"); got != want {
		t.Errorf("fork's log of the start:\n%s\nupstream's log:\n%s", got, want)
	}
	if got := gitIn(t, forkDir, "show", sha+":upstream.txt"); got != "forked upstream.txt" {
		t.Errorf("upstream.txt = %q", got)
	}
	if got := gitIn(t, forkDir, "show", sha+":dir/upstream.txt"); got != "nested upstream.txt" {
		t.Errorf("dir/upstream.txt = %q", got)
	}
	gitIn(t, forkDir, "fsck", "--strict", "--no-dangling")
	// Only the new branch: the fork's other refs, and the upstream, as they were.
	after := gitIn(t, forkDir, "for-each-ref", "--format=%(refname) %(objectname)")
	if want := "refs/heads/from-upstream " + sha + "\n"; strings.Replace(after, want, "", 1) != before {
		t.Errorf("fork refs moved:\n%s\nwere\n%s", after, before)
	}
	if got := gitIn(t, s.dir(s.upstream), "rev-parse", "main"); got != s.upstreamHead {
		t.Errorf("upstream main moved to %s", got)
	}
	if out := gitIn(t, s.dir(s.upstream), "branch", "--list", "from-upstream"); out != "" {
		t.Errorf("the upstream got the branch: %q", out)
	}

	// Further up the chain: the fork of the fork starts from the
	// upstream's main (by id, with start_sha) and from the same commit
	// again (nothing left to copy: its objects are only the new ones).
	s.moveUpstream(t, "second.txt")
	head := gitIn(t, s.dir(s.upstream), "rev-parse", "main")
	c = w.ok(t, w.Root, "add_commit", commitArgs("gitlab-org/mcp-fork-2", "grand", "start_project", fmt.Sprint(s.upstream.ID), "start_sha", head))
	grand := c["commit"].(map[string]any)["sha"].(string)
	if got := gitIn(t, s.dir(s.forkOfFork), "rev-parse", grand+"^"); got != head {
		t.Errorf("fork of fork: parent = %s, want %s", got, head)
	}
	// No start_branch: GitLab's default is the start project's branch of
	// the same name (the upstream's main), and the branch must be new.
	w.fails(t, w.Root, "add_commit", commitArgs("gitlab-org/mcp-fork-2", "main", "start_project", "gitlab-org/gitlab-mcp"),
		`Validation error: a branch called "main" already exists; switch to that branch in order to make changes`)
	w.fails(t, w.Root, "add_commit", commitArgs("gitlab-org/mcp-fork-2", "nope", "start_project", "gitlab-org/gitlab-mcp"),
		`Start branch "nope"`)
	c = w.ok(t, w.Root, "add_commit", commitArgs("gitlab-org/mcp-fork-2", "again", "start_project", "gitlab-org/gitlab-mcp", "start_branch", "main"))
	if got := gitIn(t, s.dir(s.forkOfFork), "rev-parse", "again^"); got != head {
		t.Errorf("again: parent = %s, want %s", got, head)
	}
	gitIn(t, s.dir(s.forkOfFork), "fsck", "--strict", "--no-dangling")

	// start_project naming the project itself, in any spelling, keeps the
	// plain add_commit.
	c = w.ok(t, w.Root, "add_commit", commitArgs("acme/mcp-fork", "self", "start_project", fmt.Sprint(s.fork.ID), "start_branch", "main"))
	if got := gitIn(t, forkDir, "rev-parse", "self^"); got != gitIn(t, forkDir, "rev-parse", "main") {
		t.Errorf("self: parent = %s", got)
	}
}

func TestAddCommit_startProjectRefused(t *testing.T) {
	s := newForkSetup(t)
	w := s.w
	ctx := context.Background()
	// Dave, a Developer of a fork of acme/secret-plans he cannot see.
	w.ok(t, w.Root, "fork_repository", map[string]any{"id": "acme/secret-plans", "namespace_path": "gitlab-org",
		"path": "plans-fork", "name": "Plans fork"})
	plansFork, err := w.st.Projects.FindProjectByPath(ctx, "gitlab-org/plans-fork")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := w.st.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: plansFork.ID, UserID: w.Dave.ID,
		AccessLevel: models.Developer, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	dirs := []string{s.dir(s.upstream), s.dir(s.fork), s.dir(s.forkOfFork), s.dir(plansFork), s.dir(w.project("gitlab-org/orbit"))}
	var before []string
	for _, d := range dirs {
		before = append(before, refsAndObjects(t, d))
	}
	rows := w.state(t)

	const notInNetwork = "Validation error: start_project %s is not in the fork network of %s: " +
		"it must be the project itself or a project it was forked from"
	// An unrelated project, a fork of the project (downstream) and a
	// sibling in the network are all refused.
	for _, tc := range []struct{ project, start string }{
		{"acme/mcp-fork", "gitlab-org/orbit"},
		{"gitlab-org/gitlab-mcp", "acme/mcp-fork"},
		{"acme/mcp-fork", "gitlab-org/mcp-fork-2"},
		{"gitlab-org/mcp-fork-2", "gitlab-org/plans-fork"},
	} {
		text := w.fails(t, w.Root, "add_commit", commitArgs(tc.project, "refused", "start_project", tc.start, "start_branch", "main"), "Validation error:")
		if want := fmt.Sprintf(notInNetwork, tc.start, tc.project); text != want {
			t.Errorf("%s from %s: %q, want %q", tc.project, tc.start, text, want)
		}
	}
	// A project the caller cannot see reads as a missing one, by path
	// and by id.
	for _, hidden := range []string{"acme/secret-plans", fmt.Sprint(w.project("acme/secret-plans").ID)} {
		got := w.call(t, w.Dave, "add_commit", commitArgs("gitlab-org/plans-fork", "refused", "start_project", hidden, "start_branch", "main"))
		missing := w.call(t, w.Dave, "add_commit", commitArgs("gitlab-org/plans-fork", "refused", "start_project", "acme/nope", "start_branch", "main"))
		if !got.IsError || got.Text != "404 Project Not Found" || got.Text != missing.Text || got.ErrorClass != missing.ErrorClass {
			t.Errorf("hidden start_project %s: %+v; missing one: %+v", hidden, got, missing)
		}
	}
	// Start commits that do not resolve in the start project.
	w.fails(t, w.Root, "add_commit", commitArgs("acme/mcp-fork", "refused", "start_project", "gitlab-org/gitlab-mcp",
		"start_sha", strings.Repeat("ab", 20)), "Object "+strings.Repeat("ab", 20))
	// The target decides who may commit: Bob reads the upstream but cannot
	// see the private fork.
	w.fails(t, w.Bob, "add_commit", commitArgs("acme/mcp-fork", "refused", "start_project", "gitlab-org/gitlab-mcp", "start_branch", "main"),
		"404 Project Not Found")
	for i, d := range dirs {
		if got := refsAndObjects(t, d); got != before[i] {
			t.Errorf("repository %d changed:\n%s\nwas\n%s", i, got, before[i])
		}
	}
	w.unchanged(t, rows)
}

// TestAddCommit_startProjectRace: two add_commits that create one branch
// of the fork from the upstream at once: one wins, the other gets a clear
// error (the branch exists when it looks, it is created under it, or its
// lock is held), always a conflict, and the fork's objects are whole.
func TestAddCommit_startProjectRace(t *testing.T) {
	s := newForkSetup(t)
	w := s.w
	forkDir := s.dir(s.fork)
	for round := range 4 {
		if round > 0 {
			s.moveUpstream(t, fmt.Sprintf("round-%d.txt", round)) // objects to copy again
		}
		branch := fmt.Sprintf("race-%d", round)
		var wg sync.WaitGroup
		results := make([]*tools.Result, 2)
		errs := make([]error, 2)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := commitArgs("acme/mcp-fork", branch, "start_project", "gitlab-org/gitlab-mcp", "start_branch", "main")
				args["actions"] = []any{map[string]any{"action": "create", "file_path": "racer.txt", "content": fmt.Sprintf("racer %d\n", i)}}
				results[i], errs[i] = w.try(w.Alice, "add_commit", args)
			}()
		}
		wg.Wait()
		var winner string
		losers := 0
		for i, res := range results {
			if errs[i] != nil {
				t.Fatalf("round %d racer %d: server error %v", round, i, errs[i])
			}
			if !res.IsError {
				winner = structured(t, res)["commit"].(map[string]any)["sha"].(string)
				continue
			}
			losers++
			// A race lost is a conflict, never GitLab's validation error
			// for starting an existing branch elsewhere.
			switch res.Text {
			case fmt.Sprintf("Conflict: commit to %s: %s already exists", branch, branch),
				fmt.Sprintf("Conflict: commit to %s: update %s: the ref is being updated by another writer", branch, branch):
			default:
				if !strings.HasPrefix(res.Text, fmt.Sprintf("Conflict: a branch called %q was created from the same start meanwhile (it is at ", branch)) {
					t.Errorf("round %d loser: %q", round, res.Text)
				}
			}
		}
		if losers != 1 || winner == "" {
			t.Fatalf("round %d: %d losers, winner %q", round, losers, winner)
		}
		if got := gitIn(t, forkDir, "rev-parse", "refs/heads/"+branch); got != winner {
			t.Errorf("round %d: %s = %s, want the winner %s", round, branch, got, winner)
		}
		if got, want := gitIn(t, forkDir, "rev-parse", winner+"^"), gitIn(t, s.dir(s.upstream), "rev-parse", "main"); got != want {
			t.Errorf("round %d: parent %s, want %s", round, got, want)
		}
		gitIn(t, forkDir, "fsck", "--strict")
	}
}
