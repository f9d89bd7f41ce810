package spec

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// fork_repository over HTTP: a fork is a new project whose repository git
// reads as the same history (same commits, branches and tags), that moves
// on its own afterwards; refused forks leave the store and the
// repositories directory as they were; of two concurrent forks to one
// path, or with one name, exactly one wins.

// forkSource is the public project the fork specs fork.
const forkSource = "gitlab-org/fork-source"

// forkGroup creates the public group "forks" with alice as Developer and
// bob as Reporter (carol is no member).
func forkGroup(t testing.TB, h *harness) *models.Group {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	g := &models.Group{Name: "Forks", Path: "forks", Visibility: models.VisibilityPublic, CreatedAt: now, UpdatedAt: now}
	if err := h.Env.Store.Groups.CreateGroup(ctx, g); err != nil {
		t.Fatalf("create group forks: %v", err)
	}
	for username, level := range map[string]models.AccessLevel{"alice": models.Developer, "bob": models.Reporter} {
		u, err := h.Env.Store.Users.FindUserByUsername(ctx, username)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Env.Store.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: g.ID, UserID: u.ID, AccessLevel: level,
			CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatalf("add %s to forks: %v", username, err)
		}
	}
	return g
}

// forkRepos lists the repositories on disk.
func forkRepos(t testing.TB, h *harness) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(h.Env.Repositories.Root(), "@hashed", "*", "*", "*.git"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// forkRefs lists the branches and tags of the bare repository at dir and
// their objects, as git sees them.
func forkRefs(t testing.TB, dir string) string {
	t.Helper()
	return gitRun(t, "", dir, "", "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags")
}

// forkRaceWinner checks, with git, the repository of the project at path
// that won a fork race: it holds the source's branches and tags at their
// objects (the loser's copy neither replaced nor mixed into it), and its
// objects are whole.
func forkRaceWinner(t testing.TB, h *harness, path, sourceBare string) {
	t.Helper()
	bare := h.Env.Repositories.Path(toolsProject(t, h, path).ID)
	if got, want := forkRefs(t, bare), forkRefs(t, sourceBare); got != want {
		t.Errorf("race winner %s's refs:\n%s\nwant\n%s", path, got, want)
	}
	gitRun(t, "", bare, "", "fsck", "--strict")
}

func TestTools_fork(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	f := repoSetUp(t, h, forkSource)
	src := toolsProject(t, h, forkSource)
	forkGroup(t, h)

	t.Run("all branches and tags", func(t *testing.T) {
		sc := h.toolsWrite(t, ce, "modern", "alice", "fork_repository", map[string]any{"id": forkSource, "namespace_path": "forks"})
		toolsExpectField(t, sc, "forks/fork-source", "path_with_namespace")
		toolsExpectField(t, sc, "main", "default_branch")
		toolsExpectField(t, sc, "public", "visibility")
		toolsExpectField(t, sc, h.Cfg.PublicURL+"/forks/fork-source", "web_url")
		toolsExpectField(t, sc, src.ID, "forked_from_project", "id")
		toolsExpectField(t, sc, forkSource, "forked_from_project", "path_with_namespace")
		toolsExpectField(t, sc, h.Cfg.PublicURL+"/"+forkSource, "forked_from_project", "web_url")
		fork := toolsProject(t, h, "forks/fork-source")
		if toolsInt(t, sc["id"]) != fork.ID || fork.ForkedFromProjectID == nil || *fork.ForkedFromProjectID != src.ID {
			t.Fatalf("stored fork = %+v", fork)
		}
		bare := h.Env.Repositories.Path(fork.ID)
		if got, want := forkRefs(t, bare), forkRefs(t, f.bare); got != want {
			t.Errorf("fork refs:\n%s\nsource refs:\n%s", got, want)
		}
		for _, branch := range []string{"main", "feature"} {
			if got, want := gitRun(t, "", bare, "", "log", "--format=%H", branch), f.git("", "log", "--format=%H", branch); got != want {
				t.Errorf("git log %s: fork %s, source %s", branch, got, want)
			}
		}
		if got := gitRun(t, "", bare, "", "symbolic-ref", "HEAD"); got != "refs/heads/main" {
			t.Errorf("fork HEAD = %s", got)
		}
		gitRun(t, "", bare, "", "fsck", "--strict")

		branches := h.toolsRead(t, ce, "bob", "list_branches", map[string]any{"id": "forks/fork-source"})
		if got := strings.Join(toolsField(toolsItems(t, branches), "name"), ","); got != "feature,main" {
			t.Errorf("fork branches = %s", got)
		}
		toolsExpectField(t, branches, f.git("", "rev-parse", "main"), "items", 1, "commit", "id")
		got := h.toolsRead(t, ce, "carol", "get_project", map[string]any{"project_id": "forks/fork-source"})
		toolsExpectField(t, got, src.ID, "forked_from_project", "id")
		toolsExpectField(t, got, "fork-source", "forked_from_project", "path")
		toolsExpectField(t, got, "GitLab.org / fork-source", "forked_from_project", "name_with_namespace")
		if _, ok := h.toolsRead(t, ce, "carol", "get_project", map[string]any{"project_id": forkSource})["forked_from_project"]; ok {
			t.Error("the source project shows forked_from_project")
		}

		// The fork moves on its own: a commit there is not in the source.
		before := f.refs()
		c := h.toolsWrite(t, ce, "legacy", "alice", "add_commit", map[string]any{"project_id": "forks/fork-source", "branch": "feature",
			"commit_message": "Fork only", "actions": []any{map[string]any{"action": "create", "file_path": "fork.txt", "content": "f"}}})
		sha := toolsDig(c, "commit", "sha").(string)
		if gitRun(t, "", bare, "", "rev-parse", "feature") != sha {
			t.Error("the commit is not the fork's feature head")
		}
		if f.refs() != before {
			t.Errorf("a commit on the fork moved the source's refs:\n%s\n%s", before, f.refs())
		}
		if out := f.git("", "branch", "--contains", f.git("", "rev-parse", "feature")); out != "feature" {
			t.Errorf("source branches containing its feature head: %q", out)
		}
	})

	t.Run("one branch, name, path, description, visibility", func(t *testing.T) {
		sc := h.toolsWrite(t, ce, "legacy", "alice", "fork_repository", map[string]any{"id": src.ID, "namespace_path": "forks",
			"branches": "feature", "name": "Feature only", "path": "feature-only", "description": "Just the feature", "visibility": "internal"})
		toolsExpectField(t, sc, "forks/feature-only", "path_with_namespace")
		toolsExpectField(t, sc, "feature", "default_branch")
		toolsExpectField(t, sc, "internal", "visibility")
		fork := toolsProject(t, h, "forks/feature-only")
		if fork.Name != "Feature only" || fork.Description != "Just the feature" || fork.DefaultBranch != "feature" {
			t.Errorf("stored fork = %+v", fork)
		}
		bare := h.Env.Repositories.Path(fork.ID)
		if got, want := forkRefs(t, bare), "refs/heads/feature "+f.git("", "rev-parse", "feature"); got != want {
			t.Errorf("fork refs = %q, want %q", got, want)
		}
		if got := gitRun(t, "", bare, "", "symbolic-ref", "HEAD"); got != "refs/heads/feature" {
			t.Errorf("fork HEAD = %s", got)
		}
		// A fork is never more public than its source: root (an
		// administrator) forks the internal fork, asking for public.
		sc = h.toolsWrite(t, ce, "modern", "root", "fork_repository", map[string]any{"id": "forks/feature-only",
			"namespace_id": fork.NamespaceID, "path": "fork-of-fork", "name": "Fork of fork", "visibility": "public"})
		toolsExpectField(t, sc, "internal", "visibility")
		toolsExpectField(t, sc, "forks/feature-only", "forked_from_project", "path_with_namespace")
		// On the EE endpoint too.
		sc = h.toolsWrite(t, ee, "modern", "alice", "fork_repository", map[string]any{"id": forkSource, "namespace_path": "forks", "path": "via-orbit", "name": "Via Orbit"})
		toolsExpectField(t, sc, "forks/via-orbit", "path_with_namespace")
	})

	t.Run("refused", func(t *testing.T) {
		repos := len(forkRepos(t, h))
		args := func(kv ...any) map[string]any {
			return overrideArgs(map[string]any{"id": forkSource, "namespace_path": "forks", "path": "refused", "name": "Refused"}, kv...)
		}
		// The name and the path are each unique in the group (GitLab's
		// Project validations): the path ignoring case, the name exactly.
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("path", "FORK-SOURCE"), "Conflict: Failed to fork project: Path has already been taken")
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("name", "fork-source"), "Conflict: Failed to fork project: Name has already been taken")
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("name", "Feature only", "path", "Feature-Only"),
			"Conflict: Failed to fork project: Name has already been taken, Path has already been taken")
		// Defaults are the source's name and path: both taken by the first fork.
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("name", nil, "path", nil),
			"Conflict: Failed to fork project: Name has already been taken, Path has already been taken")
		// Creating projects in a group takes Developer (GitLab's default
		// project_creation_level): bob is a Reporter, carol no member.
		h.toolsFailWith(t, ce, "bob", "fork_repository", args(), "404 Target Namespace Not Found")
		h.toolsFailWith(t, ce, "carol", "fork_repository", args(), "404 Target Namespace Not Found")
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("namespace_path", "nope"), "404 Namespace Not Found")
		h.toolsFailWith(t, ce, "alice", "fork_repository", args("branches", "nope"), "404 Source Branch Not Found")
		// A project the caller may not see reads as a missing one.
		text := h.toolsSameAsMissing(t, ce, "bob", "fork_repository", args("id", "acme/secret-plans"), args("id", "acme/nope"))
		if text != "404 Project Not Found" {
			t.Errorf("hidden source: %q", text)
		}
		h.toolsInvalid(t, ce, "alice", "fork_repository", args("namespace_id", 1), "exactly one of: namespace_path or namespace_id")
		h.toolsInvalid(t, ce, "alice", "fork_repository", args("namespace_path", nil), "exactly one of: namespace_path or namespace_id")
		h.toolsInvalid(t, ce, "alice", "fork_repository", args("path", "-bad"), "Failed to fork project")
		h.toolsInvalid(t, ce, "alice", "fork_repository", args("branches", "bad..name"), "branches")
		h.toolsInvalid(t, ce, "alice", "fork_repository", args("visibility", "secret"), "/visibility")
		if n := len(forkRepos(t, h)); n != repos {
			t.Errorf("refused forks left %d repositories, were %d", n, repos)
		}
	})

	t.Run("concurrent forks to one path", func(t *testing.T) {
		repos := len(forkRepos(t, h))
		const n = 2
		var wg sync.WaitGroup
		failed := make([]bool, n)
		texts := make([]string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				era := eras[i%2]
				res := toolsResult(t, ce, era, h.toolsCall(t, ce, era, "alice", "fork_repository",
					map[string]any{"id": forkSource, "namespace_path": "forks", "path": "race", "name": fmt.Sprintf("Race %d", i)}))
				failed[i], texts[i] = res["isError"] == true, toolsText(t, res)
			}()
		}
		wg.Wait()
		wins := 0
		for i := range n {
			switch {
			case !failed[i]:
				wins++
			case texts[i] != "Conflict: Failed to fork project: Path has already been taken":
				t.Errorf("fork %d: %q, want success or a path conflict", i, texts[i])
			}
		}
		if wins != 1 {
			t.Fatalf("%d forks succeeded, want exactly 1: %q", wins, texts)
		}
		forkRaceWinner(t, h, "forks/race", f.bare)
		if got := len(forkRepos(t, h)); got != repos+1 {
			t.Errorf("%d repositories after the race, want %d (no orphan)", got, repos+1)
		}
	})

	t.Run("add_commit from the upstream", func(t *testing.T) {
		// The upstream moves on since the fork: its new main is not in
		// the fork, so the commit's start has to be copied over.
		up := h.toolsWrite(t, ce, "modern", "root", "add_commit", map[string]any{"project_id": forkSource, "branch": "main",
			"commit_message": "Upstream moves on", "actions": []any{map[string]any{"action": "create", "file_path": "up/new.txt", "content": "up\n"}}})
		upHead := toolsDig(up, "commit", "sha").(string)
		bare := h.Env.Repositories.Path(toolsProject(t, h, "forks/fork-source").ID)
		if exec.Command("git", "--git-dir", bare, "cat-file", "-e", upHead).Run() == nil {
			t.Fatal("the fork already has the upstream's new head")
		}
		before := forkRefs(t, bare)
		c := h.toolsWrite(t, ce, "legacy", "alice", "add_commit", map[string]any{"project_id": "forks/fork-source", "branch": "from-upstream",
			"start_project": forkSource, "start_branch": "main", "commit_message": "On the upstream's main",
			"actions": []any{map[string]any{"action": "update", "file_path": "up/new.txt", "content": "fork\n"}}})
		sha := toolsDig(c, "commit", "sha").(string)
		if got := gitRun(t, "", bare, "", "rev-parse", sha+"^"); got != upHead {
			t.Errorf("parent = %s, want the upstream's main %s", got, upHead)
		}
		if got, want := gitRun(t, "", bare, "", "log", "--format=%H", sha+"^"), f.git("", "log", "--format=%H", "main"); got != want {
			t.Errorf("fork's history of the start:\n%s\nupstream's:\n%s", got, want)
		}
		after := forkRefs(t, bare)
		if got := strings.Replace(after, "refs/heads/from-upstream "+sha+"\n", "", 1); got != before {
			t.Errorf("fork refs:\n%s\nwere\n%s", after, before)
		}
		gitRun(t, "", bare, "", "fsck", "--strict", "--no-dangling")

		// A sibling (another fork of the upstream) is not a start; a
		// hidden project reads as a missing one; neither writes.
		refused := func(start string) map[string]any {
			return map[string]any{"project_id": "forks/fork-source", "branch": "refused", "start_project": start, "start_branch": "main",
				"commit_message": "Refused", "actions": []any{map[string]any{"action": "create", "file_path": "r.txt", "content": "r"}}}
		}
		h.toolsFailWith(t, ce, "alice", "add_commit", refused("forks/feature-only"),
			"Validation error: start_project forks/feature-only is not in the fork network of forks/fork-source: "+
				"it must be the project itself or a project it was forked from")
		acme, err := h.Env.Store.Groups.FindGroupByFullPath(context.Background(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		hidden := &models.Project{Name: "Hidden upstream", Path: "hidden-upstream", NamespaceID: acme.ID,
			Visibility: models.VisibilityPrivate, DefaultBranch: "main", CreatedAt: now, UpdatedAt: now}
		if err := h.Env.Store.Projects.CreateProject(context.Background(), hidden); err != nil {
			t.Fatal(err)
		}
		if text := h.toolsSameAsMissing(t, ce, "alice", "add_commit", refused("acme/hidden-upstream"), refused("acme/nope")); text != "404 Project Not Found" {
			t.Errorf("hidden start_project: %q", text)
		}
		// The push rule is the target's: bob, a Reporter of the fork's
		// group, reads the upstream but may not push to the fork.
		h.toolsFailWith(t, ce, "bob", "add_commit", refused(forkSource), "Forbidden: You are not allowed to push into this branch")
		if got := forkRefs(t, bare); got != after {
			t.Errorf("refused commits changed the fork's refs:\n%s", got)
		}
	})

	t.Run("a name differing only in case is another name", func(t *testing.T) {
		sc := h.toolsWrite(t, ce, "modern", "alice", "fork_repository", map[string]any{"id": forkSource,
			"namespace_path": "forks", "path": "other-case", "name": "Fork-Source"})
		toolsExpectField(t, sc, "forks/other-case", "path_with_namespace")
	})

	t.Run("concurrent forks with one name", func(t *testing.T) {
		repos := len(forkRepos(t, h))
		paths := []string{"same-name-a", "same-name-b"}
		var wg sync.WaitGroup
		failed := make([]bool, len(paths))
		texts := make([]string, len(paths))
		for i, path := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				era := eras[i%2]
				res := toolsResult(t, ce, era, h.toolsCall(t, ce, era, "alice", "fork_repository",
					map[string]any{"id": forkSource, "namespace_path": "forks", "path": path, "name": "Same name"}))
				failed[i], texts[i] = res["isError"] == true, toolsText(t, res)
			}()
		}
		wg.Wait()
		wins, winner := 0, ""
		for i := range paths {
			switch {
			case !failed[i]:
				wins, winner = wins+1, paths[i]
			case texts[i] != "Conflict: Failed to fork project: Name has already been taken":
				t.Errorf("fork %d: %q, want success or a name conflict", i, texts[i])
			}
		}
		if wins != 1 {
			t.Fatalf("%d forks succeeded, want exactly 1: %q", wins, texts)
		}
		forkRaceWinner(t, h, "forks/"+winner, f.bare)
		if got := len(forkRepos(t, h)); got != repos+1 {
			t.Errorf("%d repositories after the race, want %d (no orphan)", got, repos+1)
		}
	})
}
