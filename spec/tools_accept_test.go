package spec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Merge requests on git, over HTTP: branches pushed with plain git to a
// path clone become merge requests whose commits and diffs come from git;
// accept_merge_request merges in git (merge commit, squash, fast-forward)
// behind the head SHA guard, exactly once under concurrency; conflicts are
// reported, and refused calls change neither the store nor a ref.

// gitClone is a work tree cloned from a project's bare repository.
type gitClone struct {
	t          testing.TB
	bare, work string
}

func newGitClone(t testing.TB, h *harness, project string) *gitClone {
	t.Helper()
	c := &gitClone{t: t, bare: h.Env.Repositories.Path(toolsProject(t, h, project).ID), work: filepath.Join(t.TempDir(), "work")}
	gitRun(t, "", c.bare, "", "clone", "-q", c.bare, c.work)
	return c
}

// git runs git in the bare repository ("" dir) or the work tree ("w").
func (c *gitClone) git(where string, args ...string) string {
	c.t.Helper()
	if where == "w" {
		return gitRun(c.t, c.work, c.bare, "", args...)
	}
	return gitRun(c.t, "", c.bare, "", args...)
}

// push makes branch name from start (a ref of the bare repository), with
// one commit per file map, dated date, and pushes it; it returns the head.
func (c *gitClone) push(name, start, date string, commits ...map[string]string) string {
	c.t.Helper()
	gitRun(c.t, c.work, c.bare, "", "fetch", "-q", "origin")
	gitRun(c.t, c.work, c.bare, "", "checkout", "-q", "-B", name, "origin/"+start)
	for i, files := range commits {
		for p, content := range files {
			full := filepath.Join(c.work, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				c.t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				c.t.Fatal(err)
			}
		}
		gitRun(c.t, c.work, c.bare, date, "add", "-A")
		gitRun(c.t, c.work, c.bare, date, "commit", "-q", "-m", fmt.Sprintf("%s: change %d", name, i+1))
	}
	gitRun(c.t, c.work, c.bare, "", "push", "-q", "-f", "origin", name)
	return c.git("", "rev-parse", "refs/heads/"+name)
}

// refs lists every ref of the bare repository with its commit.
func (c *gitClone) refs() string {
	c.t.Helper()
	return c.git("", "for-each-ref", "--format=%(refname) %(objectname)")
}

// hasBranch reports whether the bare repository has branch name.
func (c *gitClone) hasBranch(name string) bool {
	return exec.Command("git", "--git-dir", c.bare, "rev-parse", "--verify", "-q", "refs/heads/"+name).Run() == nil
}

// openMR creates a merge request source → target as alice and returns its iid.
func (h *harness) openMR(t testing.TB, project, source, target, title string) int64 {
	t.Helper()
	sc := h.toolsWrite(t, h.groups()[0], "modern", "alice", "save_merge_request",
		map[string]any{"project_id": project, "title": title, "source_branch": source, "target_branch": target})
	return toolsInt(t, sc["iid"])
}

func TestTools_mergeRequestsOnGit(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	const mcp = "gitlab-org/gitlab-mcp"
	c := newGitClone(t, h, mcp)
	lines := func(n int, word string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%s %d\n", word, i)
		}
		return b.String()
	}

	// A branch pushed with git becomes a merge request; its commits and
	// diffs are git's, and a later push is seen on the next call.
	first := c.push("spec/accept", "main", "2026-11-01T10:00:00Z",
		map[string]string{"spec/accept.txt": lines(5, "one")}, map[string]string{"README.md": "# GitLab MCP Server\n\nEdited.\n"})
	iid := h.openMR(t, mcp, "spec/accept", "main", "Accept me")
	ref := map[string]any{"project_id": mcp, "merge_request_iid": iid}

	t.Run("commits and diffs come from git", func(t *testing.T) {
		commits := h.toolsRead(t, ce, "bob", "get_merge_request_commits", map[string]any{"id": mcp, "merge_request_iid": iid})
		if got, want := strings.Join(toolsField(toolsItems(t, commits), "id"), "\n"), c.git("", "rev-list", "main..spec/accept"); got != want {
			t.Errorf("commits = %s, git rev-list = %s", got, want)
		}
		diffs := h.toolsRead(t, ce, "bob", "get_merge_request_diffs", map[string]any{"id": mcp, "merge_request_iid": iid})
		if got, want := strings.Join(toolsField(toolsItems(t, diffs), "new_path"), "\n"), c.git("", "diff", "--name-only", "main...spec/accept"); got != want {
			t.Errorf("diff paths = %s, git diff = %s", got, want)
		}
		toolsExpectField(t, h.toolsRead(t, ce, "bob", "get_merge_request", ref), first, "diffHeadSha")
	})
	head := c.push("spec/accept", "spec/accept", "2026-11-02T10:00:00Z", map[string]string{"spec/accept.txt": lines(6, "one")})
	toolsExpectField(t, h.toolsRead(t, ce, "bob", "get_merge_request", ref), head, "diffHeadSha")

	// A target branch alice may push to, and a source that conflicts with it.
	c.push("spec/base", "main", "2026-11-03T10:00:00Z", map[string]string{"README.md": "# Base\n"})
	c.push("spec/conflict", "main", "2026-11-03T11:00:00Z", map[string]string{"README.md": "# Conflict\n"})
	conflictIID := h.openMR(t, mcp, "spec/conflict", "spec/base", "Conflicting")

	t.Run("refused accepts change neither the store nor a ref", func(t *testing.T) {
		refs := c.refs()
		accept := func(kv ...any) map[string]any { return overrideArgs(ref, append([]any{"sha", head}, kv...)...) }
		h.toolsInvalid(t, ce, "root", "accept_merge_request", accept("sha", first),
			"The merge-head is not at the anticipated SHA", head)
		h.toolsInvalid(t, ce, "root", "accept_merge_request", overrideArgs(ref, "sha", nil), "sha")
		h.toolsInvalid(t, ce, "root", "accept_merge_request", accept("strategy", "merge_when_checks_pass"), "auto-merge is not available")
		h.toolsInvalid(t, ce, "root", "accept_merge_request", accept("squash_commit_message", "x"), "squash_commit_message applies only when squash is true")
		h.toolsFailWith(t, ce, "alice", "accept_merge_request", accept(),
			"Forbidden: you are not allowed to merge into the protected branch 'main'; it needs the Maintainer role")
		h.toolsFailWith(t, ce, "bob", "accept_merge_request", accept(),
			"Forbidden: you need at least the Developer role in project gitlab-org/gitlab-mcp to merge merge requests")
		h.toolsFailWith(t, ce, "root", "accept_merge_request", accept("merge_request_iid", 999), "404 Merge Request Not Found")
		h.toolsSameAsMissing(t, ce, "bob", "accept_merge_request",
			map[string]any{"project_id": "acme/secret-plans", "merge_request_iid": 1, "sha": head},
			map[string]any{"project_id": "acme/nope", "merge_request_iid": 1, "sha": head})
		orbitHead := c.git("", "rev-parse", "refs/heads/main") // any sha: the draft is refused first
		h.toolsInvalid(t, ce, "root", "accept_merge_request",
			map[string]any{"project_id": "gitlab-org/orbit", "merge_request_iid": 1, "sha": orbitHead}, "merge request !1 is a draft")
		h.toolsFailWith(t, ce, "alice", "accept_merge_request",
			map[string]any{"project_id": mcp, "merge_request_iid": conflictIID, "sha": c.git("", "rev-parse", "refs/heads/spec/conflict")},
			"Conflict: This branch cannot be merged: merge conflicts in README.md. get_merge_request with include [\"conflicts\"] "+
				"shows them; resolve them on the source branch and try again")
		// The target branch gone: a clear error naming it.
		c.git("", "branch", "-D", "spec/base")
		h.toolsFailWith(t, ce, "alice", "accept_merge_request",
			map[string]any{"project_id": mcp, "merge_request_iid": conflictIID, "sha": c.git("", "rev-parse", "refs/heads/spec/conflict")},
			fmt.Sprintf("Target branch 'spec/base' of merge request !%d does not exist in the repository", conflictIID))
		c.push("spec/base", "main", "2026-11-03T10:00:00Z", map[string]string{"README.md": "# Base\n"})
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "accept_merge_request", accept())
		}
		if after := c.refs(); after != refs {
			t.Errorf("refused accepts moved refs:\n%s\n---\n%s", refs, after)
		}
	})

	t.Run("get_merge_request_conflicts", func(t *testing.T) {
		res := toolsResult(t, ce, "legacy", h.toolsCall(t, ce, "legacy", "alice", "get_merge_request_conflicts",
			map[string]any{"project_id": mcp, "merge_request_iid": conflictIID}))
		if res["isError"] == true {
			t.Fatalf("isError: %s", toolsText(t, res))
		}
		want := "# File: README.md\n<<<<<<< README.md\n# Conflict\n=======\n# Base\n>>>>>>> README.md\n"
		if got := toolsText(t, res); got != want {
			t.Errorf("conflicts = %q, want %q", got, want)
		}
		h.toolsInvalid(t, ce, "alice", "get_merge_request_conflicts", ref, "Merge request does not have conflicts")
		h.toolsFailWith(t, ce, "bob", "get_merge_request_conflicts", map[string]any{"project_id": mcp, "merge_request_iid": conflictIID},
			fmt.Sprintf("Forbidden: you are not allowed to push to the source branch 'spec/conflict' of merge request !%d; "+
				"conflicts are shown to those who can resolve them", conflictIID))
	})

	t.Run("merge commit into main, source branch removed", func(t *testing.T) {
		before := c.git("", "rev-parse", "refs/heads/main")
		sc := h.toolsWrite(t, ce, "legacy", "root", "accept_merge_request",
			overrideArgs(ref, "sha", head, "should_remove_source_branch", true))
		toolsExpectField(t, sc, "merged", "status")
		toolsExpectField(t, sc, true, "source_branch_removed")
		merge := toolsDig(sc, "merge_commit_sha")
		if got := c.git("", "rev-parse", "refs/heads/main"); got != merge {
			t.Fatalf("main = %s, merge commit %v", got, merge)
		}
		if got := c.git("", "log", "-1", "--format=%P%n%an%n%s", "main"); got != before+" "+head+"\nAdministrator\nMerge branch 'spec/accept' into 'main'" {
			t.Errorf("git log main:\n%s", got)
		}
		if !strings.Contains(c.git("", "log", "-1", "--format=%b", "main"), "See merge request gitlab-org/gitlab-mcp!"+fmt.Sprint(iid)) {
			t.Errorf("merge commit body: %s", c.git("", "log", "-1", "--format=%b", "main"))
		}
		if c.hasBranch("spec/accept") {
			t.Error("the source branch is still there")
		}
		c.git("", "fsck", "--strict")
		mr := h.toolsRead(t, ce, "bob", "get_merge_request", ref)
		toolsExpectField(t, mr, "merged", "state")
		toolsExpectField(t, mr, head, "diffHeadSha")
		// The diff and commits of the merged merge request stay readable,
		// though its branch is gone.
		commits := h.toolsRead(t, ce, "bob", "get_merge_request_commits", map[string]any{"id": mcp, "merge_request_iid": iid})
		toolsExpectField(t, commits, 3, "pageInfo", "total")
		diffs := h.toolsRead(t, ce, "bob", "get_merge_request_diffs", map[string]any{"id": mcp, "merge_request_iid": iid})
		if got := toolsField(toolsItems(t, diffs), "new_path"); !slices.Equal(got, []string{"README.md", "spec/accept.txt"}) {
			t.Errorf("merged diff paths = %v", got)
		}
		// Again: GitLab's already_merged, nothing more.
		refs := c.refs()
		again := h.toolsWrite(t, ce, "modern", "root", "accept_merge_request", overrideArgs(ref, "sha", head))
		toolsExpectField(t, again, "already_merged", "status")
		if c.refs() != refs {
			t.Error("accepting a merged merge request moved a ref")
		}
	})

	t.Run("squash by a developer into an unprotected branch", func(t *testing.T) {
		c.push("spec/target", "main", "2026-11-04T10:00:00Z", map[string]string{"target.txt": "t\n"})
		src := c.push("spec/squashed", "main", "2026-11-04T11:00:00Z",
			map[string]string{"s1.txt": "1\n"}, map[string]string{"s2.txt": "2\n"})
		sq := h.openMR(t, mcp, "spec/squashed", "spec/target", "Squash me")
		before := c.git("", "rev-parse", "refs/heads/spec/target")
		sc := h.toolsWrite(t, ce, "modern", "alice", "accept_merge_request", map[string]any{
			"url": h.Cfg.PublicURL + "/" + mcp + "/-/merge_requests/" + fmt.Sprint(sq), "sha": src,
			"squash": true, "squash_commit_message": "Squashed: s1 and s2", "commit_message": "Merge the squash"})
		squash := fmt.Sprint(toolsDig(sc, "squash_commit_sha"))
		merge := fmt.Sprint(toolsDig(sc, "merge_commit_sha"))
		if got := c.git("", "log", "-1", "--format=%P|%s", "refs/heads/spec/target"); got != before+" "+squash+"|Merge the squash" || c.git("", "rev-parse", "refs/heads/spec/target") != merge {
			t.Errorf("spec/target head: %s", got)
		}
		if got := c.git("", "log", "-1", "--format=%P|%s|%an", squash); got != c.git("", "merge-base", before, src)+"|Squashed: s1 and s2|Spec alice" && !strings.HasPrefix(got, c.git("", "merge-base", before, src)+"|Squashed: s1 and s2|") {
			t.Errorf("squash commit: %s", got)
		}
		if got := c.git("", "ls-tree", "--name-only", "refs/heads/spec/target"); !strings.Contains(got, "s1.txt") || !strings.Contains(got, "s2.txt") || !strings.Contains(got, "target.txt") {
			t.Errorf("merged tree:\n%s", got)
		}
		if !c.hasBranch("spec/squashed") {
			t.Error("the source branch was removed without should_remove_source_branch")
		}
		toolsExpectField(t, h.toolsRead(t, ce, "alice", "get_merge_request", map[string]any{"project_id": mcp, "merge_request_iid": sq}), true, "squash")
	})

	t.Run("fast-forward projects", func(t *testing.T) {
		p := toolsAddProject(t, h, "gitlab-org", "ffonly")
		if err := h.Env.Store.Projects.SetProjectMergeMethod(context.Background(), p.ID, models.MergeMethodFastForward); err != nil {
			t.Fatal(err)
		}
		f := newGitClone(t, h, p.PathWithNamespace)
		gitRun(t, f.work, f.bare, "2026-11-05T10:00:00Z", "commit", "-q", "--allow-empty", "-m", "root")
		gitRun(t, f.work, f.bare, "", "push", "-q", "origin", "HEAD:refs/heads/main")
		tip := f.push("ff/topic", "main", "2026-11-05T11:00:00Z", map[string]string{"a.txt": "a\n"})
		ffIID := h.openMR(t, p.PathWithNamespace, "ff/topic", "main", "Fast-forward me")
		sc := h.toolsWrite(t, ce, "legacy", "root", "accept_merge_request",
			map[string]any{"project_id": p.PathWithNamespace, "merge_request_iid": ffIID, "sha": tip})
		if _, ok := sc["merge_commit_sha"]; ok || sc["status"] != "merged" {
			t.Errorf("fast-forward answer %v", sc)
		}
		if got := f.git("", "rev-parse", "refs/heads/main"); got != tip {
			t.Errorf("main = %s, want the source head %s (fast-forward)", got, tip)
		}
		// A source that is not ahead of the target cannot be fast-forwarded.
		side := f.push("ff/side", "main", "2026-11-05T12:00:00Z", map[string]string{"b.txt": "b\n"})
		f.push("main", "main", "2026-11-05T13:00:00Z", map[string]string{"c.txt": "c\n"})
		sideIID := h.openMR(t, p.PathWithNamespace, "ff/side", "main", "Behind")
		refs := f.refs()
		h.toolsFailWith(t, ce, "root", "accept_merge_request",
			map[string]any{"project_id": p.PathWithNamespace, "merge_request_iid": sideIID, "sha": side},
			fmt.Sprintf("Conflict: merge request !%d was not merged: main cannot be fast-forwarded to refs/heads/ff/side; "+
				"rebase the source branch first. Nothing was changed; read the merge request again and retry", sideIID))
		if f.refs() != refs {
			t.Error("a refused fast-forward moved a ref")
		}
	})

	t.Run("concurrent accepts of one merge request merge once", func(t *testing.T) {
		c.push("spec/race-target", "main", "2026-11-06T10:00:00Z", map[string]string{"race-target.txt": "t\n"})
		src := c.push("spec/race", "main", "2026-11-06T11:00:00Z", map[string]string{"race.txt": "r\n"})
		raceIID := h.openMR(t, mcp, "spec/race", "spec/race-target", "Raced")
		before := c.git("", "rev-parse", "refs/heads/spec/race-target")
		const callers = 6
		var wg sync.WaitGroup
		results := make([]map[string]any, callers)
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				era := eras[i%2]
				results[i] = toolsResult(t, ce, era, h.toolsCall(t, ce, era, "alice", "accept_merge_request",
					map[string]any{"project_id": mcp, "merge_request_iid": raceIID, "sha": src}))
			}()
		}
		wg.Wait()
		merged := 0
		for i, res := range results {
			text := toolsText(t, res)
			t.Logf("caller %d: %.90s", i, text)
			switch {
			case res["isError"] == true:
				// The loser of a race: a conflict saying nothing more was merged.
				if !strings.HasPrefix(text, "Conflict: ") && !strings.HasPrefix(text, "Validation error: This branch cannot be merged") {
					t.Errorf("caller %d: %q, want a clear conflict", i, text)
				}
			case strings.Contains(text, `"status":"merged"`):
				merged++
			case !strings.Contains(text, `"status":"already_merged"`): // came after the winner had finished
				t.Errorf("caller %d: %s", i, text)
			}
		}
		if merged != 1 {
			t.Errorf("%d callers merged, want exactly 1", merged)
		}
		if n := c.git("", "rev-list", "--count", "--merges", before+"..refs/heads/spec/race-target"); n != "1" {
			t.Errorf("%s merge commits on the target, want 1", n)
		}
		if got := c.git("", "rev-parse", "refs/heads/spec/race-target^2"); got != src {
			t.Errorf("the merge's second parent is %s, want %s", got, src)
		}
		c.git("", "fsck", "--strict")
		toolsExpectField(t, h.toolsRead(t, ce, "alice", "get_merge_request", map[string]any{"project_id": mcp, "merge_request_iid": raceIID}),
			"merged", "state")
	})
}
