package spec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The repository tools over HTTP, on repositories the spec builds and
// inspects with the git command line: get_repository_file,
// list_repository_tree, list_commits, list_branches, list_tags, add_branch
// and add_commit.

// repoFixture is a demo project's bare repository and a clone of it.
type repoFixture struct {
	t    testing.TB
	bare string
	work string
}

// repoSetUp creates project (gitlab-org/NAME, with gitlab-mcp's members)
// and fills its repository with a small history, made and pushed with the
// git command line: main (3 commits, a tag), feature.
func repoSetUp(t testing.TB, h *harness, project string) *repoFixture {
	t.Helper()
	group, name, _ := strings.Cut(project, "/")
	p := toolsAddProject(t, h, group, name)
	f := &repoFixture{t: t, bare: h.Env.Repositories.Path(p.ID), work: filepath.Join(t.TempDir(), "work")}
	f.git("", "clone", "-q", f.bare, f.work)
	f.git(f.work, "checkout", "-q", "-b", "main")
	var lines strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	f.commit("Initial commit", "2026-10-01T10:00:00Z", map[string]string{"README.md": "# GitLab MCP\n", "src/main.go": lines.String()})
	many := map[string]string{"bin/logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}
	for i := range 120 {
		many[fmt.Sprintf("many/f%03d.txt", i)] = fmt.Sprintf("%d\n", i)
	}
	f.commit("Add many files", "2026-10-02T10:00:00Z", many)
	f.git(f.work, "tag", "-a", "v1.0.0", "-m", "Release 1.0.0")
	f.commit("Update README", "2026-10-03T10:00:00Z", map[string]string{"README.md": "# GitLab MCP\n\nAn MCP server.\n"})
	f.git(f.work, "checkout", "-q", "-b", "feature")
	f.commit("Feature work", "2026-10-04T10:00:00Z", map[string]string{"feature.txt": "f\n"})
	f.git(f.work, "checkout", "-q", "main")
	f.git(f.work, "push", "-q", "--all", "origin")
	f.git(f.work, "push", "-q", "--tags", "origin")
	return f
}

func (f *repoFixture) git(dir string, args ...string) string {
	f.t.Helper()
	return gitRun(f.t, dir, f.bare, "", args...)
}

// gitRun runs git in dir ("" = the bare repository bare) with a fixed
// identity (and date, when set).
func gitRun(t testing.TB, dir, bare, date string, args ...string) string {
	t.Helper()
	if dir == "" {
		args = append([]string{"--git-dir", bare}, args...)
	} else {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if date != "" {
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *repoFixture) commit(msg, date string, files map[string]string) {
	f.t.Helper()
	for p, content := range files {
		full := filepath.Join(f.work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	gitRun(f.t, f.work, f.bare, date, "add", "-A")
	gitRun(f.t, f.work, f.bare, date, "commit", "-q", "-m", msg)
}

// refs lists the bare repository's refs and their commits.
func (f *repoFixture) refs() string {
	f.t.Helper()
	return f.git("", "for-each-ref", "--format=%(refname) %(objectname)")
}

// repoMCP is the public project the repository specs build (the demo
// projects have their own history, see TestTools_demoHistory).
const repoMCP = "gitlab-org/sandbox"

func TestTools_repositoryRead(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	f := repoSetUp(t, h, repoMCP)
	main := f.git("", "rev-parse", "main")

	t.Run("get_repository_file", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "get_repository_file", map[string]any{"project_id": repoMCP, "file_path": "src/main.go", "ref": "main", "offset": 10, "limit": 5})
			toolsExpectField(t, sc, "line 11\nline 12\nline 13\nline 14\nline 15\n", "content")
			toolsExpectField(t, sc, 30, "metadata", "total_lines")
			toolsExpectField(t, sc, 11, "metadata", "returned_lines", "start")
			toolsExpectField(t, sc, 15, "metadata", "returned_lines", "end")
			toolsExpectField(t, sc, true, "metadata", "truncated")
			toolsExpectField(t, sc, "File truncated. Remaining lines: 15. To view more, call again with {\"offset\": 15, \"limit\": 5}.", "system_instruction")
		}
		whole := h.toolsRead(t, ce, "carol", "get_repository_file", map[string]any{"url": h.Cfg.PublicURL + "/" + repoMCP + "/-/blob/main/README.md"})
		toolsExpectField(t, whole, f.git("", "show", "main:README.md")+"\n", "content")
		toolsExpectField(t, whole, false, "metadata", "truncated")
		if _, ok := whole["system_instruction"]; ok {
			t.Errorf("a whole file carries a system_instruction: %v", whole)
		}
		old := h.toolsRead(t, ce, "alice", "get_repository_file", map[string]any{"project_id": repoMCP, "file_path": "README.md", "ref": "v1.0.0"})
		toolsExpectField(t, old, "# GitLab MCP\n", "content")
		bin := h.toolsRead(t, ce, "alice", "get_repository_file", map[string]any{"project_id": repoMCP, "file_path": "bin/logo.png", "ref": "HEAD"})
		toolsExpectField(t, bin, "base64", "encoding")
		toolsExpectField(t, bin, "iVBORw0KGgoAAAANSUhEUg==", "content")
	})

	t.Run("get_repository_file bad input", func(t *testing.T) {
		args := func(path, ref string) map[string]any {
			return map[string]any{"project_id": repoMCP, "file_path": path, "ref": ref}
		}
		h.toolsInvalid(t, ce, "alice", "get_repository_file", args("../../etc/passwd", "main"), "path traversal")
		h.toolsInvalid(t, ce, "alice", "get_repository_file", args("src/\x00main.go", "main"), "file_path")
		h.toolsInvalid(t, ce, "alice", "get_repository_file", args("src/", "main"), "must be a file, not a directory")
		h.toolsInvalid(t, ce, "alice", "get_repository_file", map[string]any{"project_id": repoMCP}, "Provide either url, or project_id, file_path, and ref")
		h.toolsInvalid(t, ce, "alice", "get_repository_file", map[string]any{"project_id": repoMCP, "file_path": "README.md", "ref": "main", "limit": 2001}, "/limit")
		h.toolsFailWith(t, ce, "alice", "get_repository_file", args("nope.txt", "main"),
			"File 'nope.txt' does not exist at ref 'main'. The path must be relative to the repository root. Do not retry the same path; use the search tool with scope 'blobs' to locate the file.")
		h.toolsFailWith(t, ce, "alice", "get_repository_file", args("README.md", "nope"),
			"Ref 'nope' not found. Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch.")
		// A private project reads as a missing one.
		h.toolsFailWith(t, ce, "bob", "get_repository_file", map[string]any{"project_id": "acme/secret-plans", "file_path": "a", "ref": "main"},
			"Project 'acme/secret-plans' not found or inaccessible")
		h.toolsFailWith(t, ce, "bob", "get_repository_file", map[string]any{"project_id": "acme/nope", "file_path": "a", "ref": "main"},
			"Project 'acme/nope' not found or inaccessible")
	})

	t.Run("list_repository_tree", func(t *testing.T) {
		root := h.toolsRead(t, ce, "bob", "list_repository_tree", map[string]any{"project_id": repoMCP})
		if got := strings.Join(toolsField(toolsArray(t, root["entries"]), "path"), ","); got != "bin,many,src,README.md" {
			t.Errorf("root entries = %s", got)
		}
		toolsExpectField(t, root, false, "pageInfo", "hasNextPage")
		// Recursive, paged by 100, equals git ls-tree -r -t.
		var got []string
		args := map[string]any{"project_id": repoMCP, "ref": "main", "recursive": true}
		for pages := 0; ; pages++ {
			sc := h.toolsRead(t, ce, "alice", "list_repository_tree", args)
			entries := toolsArray(t, sc["entries"])
			if len(entries) > 100 || pages > 3 {
				t.Fatalf("page of %d entries", len(entries))
			}
			got = append(got, toolsField(entries, "path")...)
			if sc["pageInfo"].(map[string]any)["hasNextPage"] != true {
				break
			}
			args = overrideArgs(args, "after", sc["pageInfo"].(map[string]any)["endCursor"])
		}
		want := strings.Split(f.git("", "ls-tree", "-r", "-t", "--name-only", "main"), "\n")
		if strings.Join(sortedCopy(got), ",") != strings.Join(sortedCopy(want), ",") {
			t.Errorf("recursive listing = %d entries, git ls-tree -r -t = %d", len(got), len(want))
		}
		h.toolsFailWith(t, ce, "alice", "list_repository_tree", map[string]any{"project_id": repoMCP, "path": "nope"},
			"Path 'nope' not found at ref 'HEAD': it does not exist or is a file, not a directory. Provide a directory path relative to the repository root, or use get_repository_file to read a file.")
		h.toolsInvalid(t, ce, "alice", "list_repository_tree", map[string]any{"project_id": repoMCP, "path": "../x"}, "path traversal")
		h.toolsInvalid(t, ce, "alice", "list_repository_tree", map[string]any{"project_id": repoMCP, "after": "bogus"}, "after")
		h.toolsInvalid(t, ce, "alice", "list_repository_tree", map[string]any{"project_id": repoMCP, "url": h.Cfg.PublicURL + "/" + repoMCP}, "exactly one of")
	})

	t.Run("list_commits", func(t *testing.T) {
		sc := h.toolsRead(t, ce, "bob", "list_commits", map[string]any{"project_id": repoMCP, "first": 2})
		shas := toolsField(toolsArray(t, sc["nodes"]), "sha")
		if want := f.git("", "log", "-2", "--format=%H", "main"); strings.Join(shas, "\n") != want {
			t.Errorf("first page = %v, git log = %s", shas, want)
		}
		toolsExpectField(t, sc, true, "pageInfo", "hasNextPage")
		next := h.toolsRead(t, ce, "bob", "list_commits", map[string]any{"project_id": repoMCP, "first": 2, "after": sc["pageInfo"].(map[string]any)["endCursor"]})
		toolsExpectField(t, next, "Initial commit", "nodes", 0, "title")
		toolsExpectField(t, next, false, "pageInfo", "hasNextPage")
		stats := h.toolsRead(t, ce, "alice", "list_commits", map[string]any{"project_id": repoMCP, "ref_name": "feature", "path": "README.md", "with_stats": true})
		toolsExpectField(t, stats, "Update README", "nodes", 0, "title")
		toolsExpectField(t, stats, 2, "nodes", 0, "diffStatsSummary", "additions")
		if n := len(toolsArray(t, stats["nodes"])); n != 2 {
			t.Errorf("README.md history = %d commits, want 2", n)
		}
		since := h.toolsRead(t, ce, "alice", "list_commits", map[string]any{"project_id": repoMCP, "since": "2026-10-02T00:00:00Z", "until": "2026-10-02T23:00:00Z"})
		toolsExpectField(t, since, "Add many files", "nodes", 0, "title")
		h.toolsInvalid(t, ce, "alice", "list_commits", map[string]any{"project_id": repoMCP, "with_stats": true, "first": 11}, "with_stats can be requested for at most 10 commits per page")
		h.toolsInvalid(t, ce, "alice", "list_commits", map[string]any{"project_id": repoMCP, "since": "yesterday"}, "since")
		h.toolsFailWith(t, ce, "alice", "list_commits", map[string]any{"project_id": repoMCP, "ref_name": "nope"},
			"Ref 'nope' not found. Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch.")
		h.toolsFailWith(t, ce, "bob", "list_commits", map[string]any{"project_id": "acme/secret-plans"}, "Project not found or inaccessible")
	})

	t.Run("branches and tags", func(t *testing.T) {
		// A branch pushed with plain git is listed on the next call.
		f.git(f.work, "push", "-q", "origin", "main:refs/heads/pushed-by-git")
		sc := h.toolsRead(t, ce, "bob", "list_branches", map[string]any{"id": repoMCP})
		if got := strings.Join(toolsField(toolsItems(t, sc), "name"), ","); got != "feature,main,pushed-by-git" {
			t.Errorf("branches = %s", got)
		}
		toolsExpectField(t, sc, true, "items", 1, "protected")
		toolsExpectField(t, sc, main, "items", 1, "commit", "id")
		toolsExpectField(t, sc, false, "items", 1, "can_push") // bob is a reporter
		tags := h.toolsRead(t, ce, "bob", "list_tags", map[string]any{"project_id": repoMCP})
		toolsExpectField(t, tags, "v1.0.0", "tags", 0, "name")
		toolsExpectField(t, tags, "Add many files", "tags", 0, "commit", "title")
		toolsExpectField(t, tags, false, "metadata", "has_next_page")
	})

	t.Run("list_commits pages from a fixed head", func(t *testing.T) {
		const paging = "gitlab-org/paging"
		pf := repoSetUp(t, h, paging)
		first := h.toolsRead(t, ce, "bob", "list_commits", map[string]any{"project_id": paging, "first": 1})
		after := first["pageInfo"].(map[string]any)["endCursor"]
		page2 := map[string]any{"project_id": paging, "first": 1, "after": after}
		want := pf.git("", "log", "--skip=1", "-1", "--format=%H", "main") // page 2 before the push
		// A commit pushed with plain git between page 1 and page 2 moves
		// main; page 2 still continues the listing page 1 started.
		pf.commit("Pushed between pages", "2026-10-05T10:00:00Z", map[string]string{"late.txt": "late\n"})
		pf.git(pf.work, "push", "-q", "origin", "main")
		for range 2 { // the page-1 cursor stays valid
			sc := h.toolsRead(t, ce, "bob", "list_commits", page2)
			if got := strings.Join(toolsField(toolsArray(t, sc["nodes"]), "sha"), "\n"); got != want {
				t.Errorf("page 2 after a push = %s, want %s (git log before the push)", got, want)
			}
			toolsExpectField(t, sc, true, "pageInfo", "hasNextPage")
		}
		fresh := h.toolsRead(t, ce, "bob", "list_commits", map[string]any{"project_id": paging, "first": 1})
		toolsExpectField(t, fresh, pf.git("", "rev-parse", "main"), "nodes", 0, "sha")
		// The cursor belongs to its project and ref.
		h.toolsInvalid(t, ce, "bob", "list_commits", map[string]any{"project_id": repoMCP, "first": 1, "after": after},
			"after", "is not a cursor of this list")
		h.toolsInvalid(t, ce, "bob", "list_commits", map[string]any{"project_id": paging, "ref_name": "feature", "first": 1, "after": after},
			"after", "is not a cursor of this list")
	})
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestTools_repositoryWrite(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	f := repoSetUp(t, h, repoMCP)
	main := f.git("", "rev-parse", "main")

	t.Run("add_branch", func(t *testing.T) {
		for i, era := range eras {
			name := fmt.Sprintf("topic-%d", i)
			sc := h.toolsWrite(t, ce, era, "alice", "add_branch", map[string]any{"project_id": repoMCP, "branch": name, "ref": "main"})
			toolsExpectField(t, sc, name, "branch", "name")
			toolsExpectField(t, sc, main, "branch", "commit", "sha")
			if got := f.git("", "rev-parse", name); got != main {
				t.Errorf("git rev-parse %s = %s, want %s", name, got, main)
			}
		}
		h.toolsWrite(t, ce, "legacy", "alice", "create_branch", map[string]any{"project_id": repoMCP, "branch": "via-alias", "ref": "v1.0.0"})
		before := f.refs()
		h.toolsInvalid(t, ce, "alice", "add_branch", map[string]any{"project_id": repoMCP, "branch": "topic-0", "ref": "main"}, "Branch already exists")
		h.toolsInvalid(t, ce, "alice", "add_branch", map[string]any{"project_id": repoMCP, "branch": "bad..name", "ref": "main"}, "Branch name is invalid")
		h.toolsInvalid(t, ce, "alice", "add_branch", map[string]any{"project_id": repoMCP, "branch": "x", "ref": "nope"}, "Invalid reference name: nope")
		h.toolsFailWith(t, ce, "bob", "add_branch", map[string]any{"project_id": repoMCP, "branch": "bobs", "ref": "main"},
			"Forbidden: You are not allowed to push into this branch")
		if after := f.refs(); after != before {
			t.Errorf("refused add_branch calls changed refs:\n%s\n%s", before, after)
		}
	})

	t.Run("add_commit", func(t *testing.T) {
		args := map[string]any{"project_id": repoMCP, "branch": "agent/work", "start_branch": "main", "commit_message": "Agent edit",
			"actions": []any{
				map[string]any{"action": "update", "file_path": "README.md", "old_str": "An MCP server.", "new_str": "A GitLab MCP server."},
				map[string]any{"action": "create", "file_path": "docs/new.md", "content": "bmV3Cg==", "encoding": "base64"},
				map[string]any{"action": "move", "previous_path": "feature.txt", "file_path": "moved.txt"},
			}}
		// feature.txt only exists on feature: the move fails, nothing is written.
		before := f.refs()
		h.toolsInvalid(t, ce, "alice", "add_commit", args, "feature.txt")
		if f.refs() != before {
			t.Fatal("a failed add_commit changed refs")
		}
		args["actions"] = args["actions"].([]any)[:2]
		sc := h.toolsWrite(t, ce, "modern", "alice", "add_commit", args)
		sha := toolsDig(sc, "commit", "sha").(string)
		if got := f.git("", "log", "-1", "--format=%H %an %s", "agent/work"); got != sha+" Alice Agent Agent edit" && !strings.HasPrefix(got, sha+" ") {
			t.Errorf("git log = %q, want commit %s", got, sha)
		}
		if got := f.git("", "show", "agent/work:README.md"); !strings.Contains(got, "A GitLab MCP server.") {
			t.Errorf("README after the partial edit = %q", got)
		}
		if got := f.git("", "show", "agent/work:docs/new.md"); got != "new" {
			t.Errorf("docs/new.md = %q", got)
		}
		if f.git("", "rev-parse", "agent/work^") != main {
			t.Error("the commit is not on top of main")
		}
		f.git("", "fsck", "--strict")

		before = f.refs()
		edit := func(branch string, a map[string]any) map[string]any {
			return map[string]any{"project_id": repoMCP, "branch": branch, "commit_message": "m", "actions": []any{a}}
		}
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("agent/work", map[string]any{"action": "create", "file_path": "../escape", "content": "x"}), "path traversal")
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("agent/work", map[string]any{"action": "create", "file_path": "/etc/passwd", "content": "x"}), "absolute")
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("agent/work", map[string]any{"action": "create", "file_path": "README.md", "content": "x"}), "already exists")
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("agent/work", map[string]any{"action": "update", "file_path": "src/main.go", "old_str": "line", "new_str": "x"}), "old_str is ambiguous")
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("agent/work", map[string]any{"action": "delete", "file_path": "README.md", "old_str": "a", "new_str": "b"}), "Partial edits are only supported for update actions")
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("agent/work", map[string]any{"action": "copy", "file_path": "a"}), "/actions/0/action")
		h.toolsInvalid(t, ce, "alice", "add_commit", edit("nope-branch", map[string]any{"action": "create", "file_path": "a", "content": "x"}), "does not exist")
		// main is protected: Maintainers push, Developers do not.
		h.toolsFailWith(t, ce, "alice", "add_commit", edit("main", map[string]any{"action": "create", "file_path": "a", "content": "x"}),
			"Forbidden: You are not allowed to push into the protected branch 'main'; it needs the Maintainer role")
		h.toolsFailWith(t, ce, "bob", "add_commit", edit("agent/work", map[string]any{"action": "create", "file_path": "a", "content": "x"}),
			"Forbidden: You are not allowed to push into this branch")
		h.toolsFailWith(t, ce, "bob", "add_commit", map[string]any{"project_id": "acme/secret-plans", "branch": "main", "commit_message": "m",
			"actions": []any{map[string]any{"action": "create", "file_path": "a", "content": "x"}}}, "404 Project Not Found")
		if after := f.refs(); after != before {
			t.Errorf("refused add_commit calls changed refs:\n%s\n%s", before, after)
		}
		sc = h.toolsWrite(t, ce, "legacy", "root", "add_commit", edit("main", map[string]any{"action": "create", "file_path": "by-root.txt", "content": "r"}))
		if f.git("", "rev-parse", "main") != toolsDig(sc, "commit", "sha") {
			t.Error("root's commit to main is not main's head")
		}
	})

	t.Run("concurrent add_commit on one branch", func(t *testing.T) {
		const writers = 6
		head := f.git("", "rev-parse", "agent/work")
		var wg sync.WaitGroup
		texts := make([]string, writers)
		errs := make([]bool, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				era := eras[i%2]
				res := toolsResult(t, ce, era, h.toolsCall(t, ce, era, "alice", "add_commit", map[string]any{
					"project_id": repoMCP, "branch": "agent/work", "commit_message": fmt.Sprintf("writer %d", i),
					"actions": []any{map[string]any{"action": "create", "file_path": fmt.Sprintf("w/%d.txt", i), "content": "x"}}}))
				errs[i] = res["isError"] == true
				texts[i] = toolsText(t, res)
			}()
		}
		wg.Wait()
		wins := 0
		for i := range writers {
			if !errs[i] {
				wins++
			} else if !strings.HasPrefix(texts[i], "Conflict: ") {
				t.Errorf("writer %d: %q, want a conflict or success", i, texts[i])
			}
		}
		if wins == 0 {
			t.Fatal("no writer succeeded")
		}
		log := f.git("", "log", "--format=%s", head+"..agent/work")
		if n := len(strings.Split(log, "\n")); n != wins {
			t.Errorf("%d commits on the branch, %d writers reported success:\n%s", n, wins, log)
		}
		f.git("", "fsck", "--strict")
	})
}

// TestTools_demoHistory: the demo world's repositories hold real history
// (glmcp seed --demo): the repository tools read what git shows, a merge
// request's head is its source branch's commit, and a branch pushed with
// plain git to a path clone is listed on the next call.
func TestTools_demoHistory(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	const mcp = "gitlab-org/gitlab-mcp"
	bare := h.Env.Repositories.Path(toolsProject(t, h, mcp).ID)
	git := func(args ...string) string { return gitRun(t, "", bare, "", args...) }
	for _, era := range eras {
		sc := toolsResult(t, ce, era, h.toolsCall(t, ce, era, "bob", "list_commits", map[string]any{"project_id": mcp, "first": 5}))
		if got, want := strings.Join(toolsField(toolsArray(t, toolsSucceeded(t, sc)["nodes"]), "sha"), "\n"), git("log", "-5", "--format=%H", "main"); got != want {
			t.Errorf("%s: list_commits = %s, git log = %s", era, got, want)
		}
	}
	// list_tags as GitLab's: most recently updated first, first/after
	// paging by tag name, search with anchors and wildcards, the exact
	// name first.
	tags := h.toolsRead(t, ce, "carol", "list_tags", map[string]any{"project_id": mcp})
	if got := strings.Join(toolsField(toolsArray(t, tags["tags"]), "name"), ","); got != "v18.7.0,v18.6.0" {
		t.Errorf("tags = %s", got)
	}
	toolsExpectField(t, tags, git("rev-parse", "v18.7.0^{commit}"), "tags", 0, "commit", "sha")
	toolsExpectField(t, tags, nil, "metadata", "end_cursor")
	page1 := h.toolsRead(t, ce, "carol", "list_tags", map[string]any{"project_id": mcp, "first": 1})
	toolsExpectField(t, page1, "v18.7.0", "tags", 0, "name")
	toolsExpectField(t, page1, true, "metadata", "has_next_page")
	toolsExpectField(t, page1, "v18.7.0", "metadata", "end_cursor")
	page2 := h.toolsRead(t, ce, "carol", "list_tags", map[string]any{"project_id": mcp, "first": 1, "after": "v18.7.0"})
	toolsExpectField(t, page2, "v18.6.0", "tags", 0, "name")
	toolsExpectField(t, page2, false, "metadata", "has_next_page")
	for search, want := range map[string]string{"^V18.6": "v18.6.0", "7.0$": "v18.7.0", "v*.0": "v18.7.0,v18.6.0", "18.6": "v18.6.0", "^18": "", "v18.6.0": "v18.6.0"} {
		sc := h.toolsRead(t, ce, "carol", "list_tags", map[string]any{"project_id": mcp, "search": search})
		if got := strings.Join(toolsField(toolsArray(t, sc["tags"]), "name"), ","); got != want {
			t.Errorf("search %q: tags = %s, want %s", search, got, want)
		}
	}
	h.toolsFailWith(t, ce, "carol", "list_tags", map[string]any{"project_id": mcp, "after": "v0.0.0"}, "Invalid after cursor: 'v0.0.0'")
	h.toolsInvalid(t, ce, "carol", "list_tags", map[string]any{"project_id": mcp, "page": 2}, "page")
	mr := h.toolsRead(t, ce, "alice", "get_merge_request", map[string]any{"project_id": mcp, "merge_request_iid": 1})
	toolsExpectField(t, mr, git("rev-parse", "feature/server-discover"), "diffHeadSha")
	file := h.toolsRead(t, ce, "alice", "get_repository_file", map[string]any{"project_id": mcp, "file_path": "internal/mcp/discover.go", "ref": "feature/server-discover"})
	toolsExpectField(t, file, git("show", "feature/server-discover:internal/mcp/discover.go")+"\n", "content")

	work := filepath.Join(t.TempDir(), "work")
	gitRun(t, "", bare, "", "clone", "-q", bare, work)
	gitRun(t, work, bare, "", "checkout", "-q", "-b", "pushed/by-git")
	gitRun(t, work, bare, "", "commit", "-q", "--allow-empty", "-m", "Pushed with git")
	gitRun(t, work, bare, "", "push", "-q", "origin", "pushed/by-git")
	branches := h.toolsRead(t, ce, "bob", "list_branches", map[string]any{"id": mcp})
	if got := strings.Join(toolsField(toolsItems(t, branches), "name"), ","); got != "feature/server-discover,main,pushed/by-git" {
		t.Errorf("branches after git push = %s", got)
	}
}
