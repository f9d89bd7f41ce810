package spec

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The search tools over HTTP: search (alias gitlab_search), search_labels
// and the EE semantic_code_search.

func TestTools_search(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	secret := toolsProject(t, h, "acme/secret-plans")

	t.Run("happy path", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "search", map[string]any{"scope": "issues", "search": "nebula"})
			if got := toolsField(toolsItems(t, sc), "title"); !slices.Equal(got, []string{
				"Rename Project Nebula before the public announcement", "Board deck for the Nebula pricing decision"}) {
				t.Errorf("issues matching nebula = %v", got)
			}
			toolsExpectField(t, sc, 2, "pageInfo", "total")
		}
		sc := h.toolsRead(t, ce, "bob", "search", map[string]any{"scope": "merge_requests", "search": "discover", "project_id": "gitlab-org/gitlab-mcp"})
		if got := toolsField(toolsItems(t, sc), "references", "full"); !slices.Equal(got, []string{"gitlab-org/gitlab-mcp!1"}) {
			t.Errorf("merge requests matching discover = %v", got)
		}
		sc = h.toolsRead(t, ce, "bob", "search", map[string]any{"scope": "projects", "search": "orbit", "group_id": "gitlab-org"})
		if got := toolsField(toolsItems(t, sc), "path_with_namespace"); !slices.Equal(got, []string{"gitlab-org/orbit"}) {
			t.Errorf("projects matching orbit = %v", got)
		}
		sc = h.toolsRead(t, ce, "carol", "search", map[string]any{"scope": "milestones", "search": "protocol", "project_id": "gitlab-org/gitlab-mcp"})
		if got := toolsField(toolsItems(t, sc), "title"); !slices.Equal(got, []string{"18.8"}) {
			t.Errorf("milestones = %v", got)
		}
		toolsExpectField(t, sc, h.Cfg.PublicURL+"/gitlab-org/gitlab-mcp/-/milestones/2", "items", 0, "web_url")
		sc = h.toolsRead(t, ce, "carol", "search", map[string]any{"scope": "wiki_blobs", "search": "always on", "project_id": "gitlab-org/gitlab-mcp"})
		if got := toolsField(toolsItems(t, sc), "filename"); !slices.Equal(got, []string{"toolsets.md"}) {
			t.Errorf("wiki blobs = %v", got)
		}
		toolsExpectField(t, sc, "toolsets", "items", 0, "basename")
		sc = h.toolsRead(t, ce, "carol", "search", map[string]any{"scope": "groups", "search": "labs"})
		if got := toolsField(toolsItems(t, sc), "full_path"); !slices.Equal(got, []string{"gitlab-org/labs"}) {
			t.Errorf("groups = %v", got)
		}
		toolsExpectField(t, sc, "GitLab.org / Labs", "items", 0, "full_name")
		toolsExpectField(t, h.toolsRead(t, ce, "alice", "search", map[string]any{"scope": "snippet_titles", "search": "x"}), 0, "pageInfo", "total")
		sc = h.toolsRead(t, ce, "bob", "search", map[string]any{"scope": "issues", "search": "o", "per_page": 2, "page": 2, "state": "opened"})
		toolsExpectField(t, sc, 2, "pageInfo", "page")
		toolsExpectField(t, sc, 1, "pageInfo", "prev_page")
		if n := len(toolsItems(t, sc)); n != 2 {
			t.Errorf("page 2 of 2 per page holds %d items", n)
		}
	})

	t.Run("alias gitlab_search answers like search", func(t *testing.T) {
		args := map[string]any{"scope": "notes", "search": "root cause"}
		want := h.toolsRead(t, ce, "alice", "search", args)
		if len(toolsItems(t, want)) == 0 {
			t.Fatal("the notes search found nothing; pick a term the demo data has")
		}
		if got := h.toolsRead(t, ce, "alice", "gitlab_search", args); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("gitlab_search = %v\nwant %v", got, want)
		}
	})

	t.Run("validation errors", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{"search": "x"}, "scope"},
			{map[string]any{"scope": "issues"}, "search"},
			{map[string]any{"scope": "snippet_blobs", "search": "x"}, "/scope"},
			{map[string]any{"scope": "blobs", "search": "x"}, "scope: blobs is searched within one project: give project_id"},
			{map[string]any{"scope": "commits", "search": "x", "group_id": "gitlab-org"}, "scope: commits is searched within one project: give project_id"},
			{map[string]any{"scope": "groups", "search": "x", "project_id": "gitlab-org/gitlab-mcp"}, "scope: groups cannot be searched within a project"},
			{map[string]any{"scope": "snippet_titles", "search": "x", "group_id": "gitlab-org"}, "snippet_titles is searched across the instance only"},
			{map[string]any{"scope": "issues", "search": ""}, "/search"},
			{map[string]any{"scope": "issues", "search": "   "}, "search: must not be blank"},
			{map[string]any{"scope": "projects", "search": "x", "project_id": "gitlab-org/gitlab-mcp"}, "scope: projects cannot be searched within a project"},
			{map[string]any{"scope": "issues", "search": "x", "per_page": 101}, "/per_page"},
			{map[string]any{"scope": "issues", "search": "x", "order_by": "title"}, "/order_by"},
			{map[string]any{"scope": "issues", "search": "x", "fields": []any{"description"}}, "/fields/0"},
		} {
			h.toolsInvalid(t, ce, "alice", "search", c.args, c.frag)
		}
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "search", map[string]any{"scope": "issues", "search": "x", "project_id": "gitlab-org/nope"}, "404 Project Not Found")
		h.toolsFailWith(t, ce, "alice", "search", map[string]any{"scope": "issues", "search": "x", "group_id": "nope"}, "404 Group Not Found")
	})

	t.Run("permissions: a non-member never sees the private project", func(t *testing.T) {
		for _, user := range []string{"carol", "bob"} {
			h.toolsSameAsMissing(t, ce, user, "search",
				map[string]any{"scope": "issues", "search": "nebula", "project_id": "acme/secret-plans"},
				map[string]any{"scope": "issues", "search": "nebula", "project_id": "acme/nope"})
			h.toolsSameAsMissing(t, ce, user, "search",
				map[string]any{"scope": "issues", "search": "nebula", "group_id": "acme"},
				map[string]any{"scope": "issues", "search": "nebula", "group_id": "nope"})
			// Instance-wide, in every scope, with terms from the private
			// project and with terms that match nearly everything.
			for _, scope := range []string{"projects", "groups", "issues", "work_items", "merge_requests", "milestones", "notes", "wiki_blobs", "users", "snippet_titles"} {
				for _, term := range []string{"nebula", "secret", "acme", "hooli", "e", "a"} {
					sc := h.toolsRead(t, ce, user, "search", map[string]any{"scope": scope, "search": term, "per_page": 100})
					text := fmt.Sprint(sc)
					for _, leak := range []string{"acme/secret-plans", "Nebula", "Hooli", "Secret Plans", "Acme Corp"} {
						if strings.Contains(text, leak) {
							t.Errorf("%s searching %s for %q sees %q: %v", user, scope, term, leak, sc)
						}
					}
					for _, it := range toolsItems(t, sc) {
						if fmt.Sprint(toolsDig(it, "project_id")) == fmt.Sprint(secret.ID) || (scope == "projects" && fmt.Sprint(toolsDig(it, "id")) == fmt.Sprint(secret.ID)) {
							t.Errorf("%s searching %s for %q sees an object of the private project: %v", user, scope, term, it)
						}
					}
				}
			}
		}
		// Its member and administrators find it.
		for _, user := range []string{"alice", "root"} {
			sc := h.toolsRead(t, ce, user, "search", map[string]any{"scope": "notes", "search": "hooli"})
			toolsExpectField(t, sc, secret.ID, "items", 0, "project_id")
		}
		// The internal project is searchable by every signed-in user.
		sc := h.toolsRead(t, ce, "carol", "search", map[string]any{"scope": "issues", "search": "cyclic", "project_id": "gitlab-org/orbit"})
		toolsExpectField(t, sc, 1, "pageInfo", "total")
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "search", map[string]any{"scope": "issues", "search": "x"})
		}
	})
}

// TestTools_searchGit: the blobs and commits scopes read the default
// branch of the project's git repository.
func TestTools_searchGit(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	f := repoSetUp(t, h, "gitlab-org/searchable")
	toolsAddProject(t, h, "gitlab-org", "empty") // a repository without commits
	mcp := toolsProject(t, h, "gitlab-org/searchable")
	search := func(user string, kv ...any) map[string]any {
		return h.toolsRead(t, ce, user, "search", overrideArgs(map[string]any{"project_id": "gitlab-org/searchable"}, kv...))
	}

	t.Run("blobs: paths and contents of the default branch, GitLab's filters", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "search", map[string]any{"scope": "blobs", "search": "line 12", "project_id": mcp.ID})
			if got := toolsField(toolsItems(t, sc), "path"); !slices.Equal(got, []string{"src/main.go"}) {
				t.Errorf("%s: blobs matching line 12 = %v", g.Name, got)
			}
			toolsExpectField(t, sc, 10, "items", 0, "startline")
			toolsExpectField(t, sc, "line 10\nline 11\nline 12\nline 13\nline 14", "items", 0, "data")
			toolsExpectField(t, sc, "src/main", "items", 0, "basename")
			toolsExpectField(t, sc, "main", "items", 0, "ref")
			toolsExpectField(t, sc, mcp.ID, "items", 0, "project_id")
		}
		for _, c := range []struct {
			search string
			want   string
		}{
			{"an mcp server", "[README.md]"},        // contents, ignoring case
			{"README", "[README.md]"},               // paths
			{"line filename:*.GO", "[src/main.go]"}, // filename: wildcard
			{"filename:main.go", "[src/main.go]"},
			{"path:src/", "[src/main.go]"},
			{"feature", "[]"},                      // feature.txt is on another branch
			{"IHDR", "[]"},                         // binary contents are not searched
			{"GitLab extension:md", "[README.md]"}, // extension:
		} {
			if got := fmt.Sprint(toolsField(toolsItems(t, search("bob", "scope", "blobs", "search", c.search)), "path")); got != c.want {
				t.Errorf("blobs %q = %s, want %s", c.search, got, c.want)
			}
		}
		sc := search("bob", "scope", "blobs", "search", "extension:txt", "per_page", 50, "page", 3)
		toolsExpectField(t, sc, 120, "pageInfo", "total")
		if got := toolsField(toolsItems(t, sc), "path"); len(got) != 20 || got[0] != "many/f100.txt" {
			t.Errorf("page 3 of the txt files = %v", got)
		}
		toolsExpectField(t, sc, "100\n", "items", 0, "data")
		// A project whose repository is still empty has no blobs.
		toolsExpectField(t, search("bob", "scope", "blobs", "search", "x", "project_id", "gitlab-org/empty"), 0, "pageInfo", "total")
		// The demo world's history is searched like any other.
		sc = h.toolsRead(t, ce, "bob", "search", map[string]any{"scope": "blobs", "search": "Reachable filename:graph.go", "project_id": "gitlab-org%2Forbit"})
		if got := toolsField(toolsItems(t, sc), "path"); !slices.Equal(got, []string{"graph/graph.go"}) {
			t.Errorf("demo blobs = %v", got)
		}
	})

	t.Run("commits: messages on the default branch, newest first", func(t *testing.T) {
		head := f.git("", "rev-parse", "main")
		for _, c := range []struct {
			kv   []any
			want string
		}{
			{[]any{"search", "readme"}, "[Update README]"},
			{[]any{"search", "m"}, "[Update README Add many files Initial commit]"},
			{[]any{"search", "M", "sort", "asc"}, "[Initial commit Add many files Update README]"},
			{[]any{"search", "feature"}, "[]"},
			{[]any{"search", head[:10]}, "[Update README]"},
			{[]any{"search", "m", "per_page", 1, "page", 2}, "[Add many files]"},
			{[]any{"search", "m", "per_page", 2, "page", 2}, "[Initial commit]"},
			{[]any{"search", "m", "sort", "asc", "per_page", 2, "page", 1}, "[Initial commit Add many files]"},
			{[]any{"search", "m", "sort", "asc", "per_page", 2, "page", 2}, "[Update README]"},
			{[]any{"search", "m", "per_page", 2, "page", 3}, "[]"},
			{[]any{"search", head[:10], "per_page", 1, "page", 2}, "[]"},
			{[]any{"search", "0000000000"}, "[]"},
		} {
			sc := search("carol", append([]any{"scope", "commits"}, c.kv...)...)
			if got := fmt.Sprint(toolsField(toolsItems(t, sc), "title")); got != c.want {
				t.Errorf("commits %v = %s, want %s", c.kv, got, c.want)
			}
		}
		sc := search("carol", "scope", "commits", "search", "readme")
		toolsExpectField(t, sc, head, "items", 0, "id")
		toolsExpectField(t, sc, head[:8], "items", 0, "short_id")
		toolsExpectField(t, sc, "Alice", "items", 0, "author_name")
		toolsExpectField(t, sc, "2026-10-03T10:00:00.000+00:00", "items", 0, "committed_date")
		toolsExpectField(t, sc, h.Cfg.PublicURL+"/gitlab-org/searchable/-/commit/"+head, "items", 0, "web_url")
		toolsExpectField(t, sc, mcp.ID, "items", 0, "project_id")
		toolsExpectField(t, h.toolsRead(t, ce, "carol", "search", map[string]any{"scope": "commits", "search": "m", "project_id": "gitlab-org/empty"}), 0, "pageInfo", "total")
	})

	t.Run("commits: the count stops as GitLab's does, 100 matches past the page's start", func(t *testing.T) {
		p := toolsAddProject(t, h, "gitlab-org", "busy")
		var s bytes.Buffer
		for i := range 250 { // "change 0" … "change 249" on main, newest last
			msg := fmt.Sprintf("change %d", i)
			fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> %d +0000\ndata %d\n%s\n", i+1, 1767225600+i*60, len(msg), msg)
			if i > 0 {
				fmt.Fprintf(&s, "from :%d\n", i)
			}
			fmt.Fprintf(&s, "M 100644 inline f.txt\ndata %d\n%d\n\n", len(fmt.Sprint(i))+1, i)
		}
		cmd := exec.Command("git", "--git-dir", h.Env.Repositories.Path(p.ID), "fast-import", "--quiet")
		cmd.Stdin = &s
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fast-import: %v\n%s", err, out)
		}
		for _, c := range []struct {
			kv                []any
			total, totalPages int
			next              any
			first             string
		}{
			{[]any{"search", "change"}, 100, 5, 2, "change 249"},
			{[]any{"search", "change", "page", 3}, 140, 7, 4, "change 209"},
			{[]any{"search", "change", "per_page", 100, "page", 2}, 200, 2, nil, "change 149"},
			{[]any{"search", "change", "per_page", 100, "page", 3}, 250, 3, nil, "change 49"},
			{[]any{"search", "change", "sort", "asc"}, 100, 5, 2, "change 0"},
			{[]any{"search", "change 7"}, 11, 1, nil, "change 79"}, // a rare term: every match counted
		} {
			sc := h.toolsRead(t, ce, "carol", "search", overrideArgs(map[string]any{"project_id": "gitlab-org/busy", "scope": "commits"}, c.kv...))
			pi := toolsDig(sc, "pageInfo")
			if got := fmt.Sprint(toolsDig(pi, "total"), " ", toolsDig(pi, "total_pages"), " ", toolsDig(pi, "next_page")); got != fmt.Sprint(c.total, " ", c.totalPages, " ", c.next) {
				t.Errorf("commits %v: total, total_pages, next_page = %s, want %d %d %v", c.kv, got, c.total, c.totalPages, c.next)
			}
			toolsExpectField(t, sc, c.first, "items", 0, "title")
		}
	})

	t.Run("a private project's code reads like a missing project", func(t *testing.T) {
		toolsAddUser(t, h, "outsider")
		for _, g := range h.groups() {
			for _, user := range map[string][]string{"CE": {"bob", "carol", "outsider"}, "EE": {"outsider"}}[g.Name] {
				for _, scope := range []string{"blobs", "commits"} {
					h.toolsSameAsMissing(t, g, user, "search", map[string]any{"scope": scope, "search": "plans", "project_id": "acme/secret-plans"},
						map[string]any{"scope": scope, "search": "plans", "project_id": "acme/nope"})
				}
			}
		}
	})
}

func TestTools_searchLabels(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]

	t.Run("happy path", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "search_labels", map[string]any{"full_path": "gitlab-org/gitlab-mcp", "is_project": true})
			if got := toolsField(toolsItems(t, sc), "name"); !slices.Equal(got, []string{"bug", "documentation", "feature", "security", "workflow::in review"}) {
				t.Errorf("labels = %v", got)
			}
			toolsExpectField(t, sc, "#d9534f", "items", 0, "color")
			toolsExpectField(t, sc, "#FFFFFF", "items", 0, "text_color")
		}
		sc := h.toolsRead(t, ce, "carol", "search_labels", map[string]any{"full_path": "gitlab-org", "is_project": false, "search": []any{"perf", "BUG"}})
		if got := toolsField(toolsItems(t, sc), "name"); !slices.Equal(got, []string{"bug", "performance"}) {
			t.Errorf("group labels matching perf or bug = %v", got)
		}
	})

	t.Run("validation errors", func(t *testing.T) {
		h.toolsInvalid(t, ce, "alice", "search_labels", map[string]any{"full_path": "gitlab-org"}, "is_project")
		h.toolsInvalid(t, ce, "alice", "search_labels", map[string]any{"is_project": true}, "full_path")
		h.toolsInvalid(t, ce, "alice", "search_labels", map[string]any{"full_path": "", "is_project": true}, "/full_path")
		h.toolsInvalid(t, ce, "alice", "search_labels", map[string]any{"full_path": "gitlab-org", "is_project": false,
			"search": []any{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}}, "/search")
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ce, "alice", "search_labels", map[string]any{"full_path": "gitlab-org/nope", "is_project": true},
			"Project 'gitlab-org/nope' not found or inaccessible")
		h.toolsFailWith(t, ce, "alice", "search_labels", map[string]any{"full_path": "nope", "is_project": false},
			"Group 'nope' not found or inaccessible")
	})

	t.Run("permissions", func(t *testing.T) {
		for _, user := range []string{"alice", "root"} {
			sc := h.toolsRead(t, ce, user, "search_labels", map[string]any{"full_path": "acme", "is_project": false})
			if got := toolsField(toolsItems(t, sc), "name"); !slices.Equal(got, []string{"strategy"}) {
				t.Errorf("%s: acme labels = %v", user, got)
			}
		}
		// The message names the path asked for; apart from it, a hidden
		// project or group reads exactly like a missing one.
		for _, user := range []string{"carol", "bob"} {
			for _, c := range []struct {
				path, missing string
				project       bool
			}{{"acme/secret-plans", "acme/nope", true}, {"acme", "nope", false}} {
				hidden := h.toolsFail(t, ce, user, "search_labels", map[string]any{"full_path": c.path, "is_project": c.project})
				missing := h.toolsFail(t, ce, user, "search_labels", map[string]any{"full_path": c.missing, "is_project": c.project})
				if strings.Replace(missing, c.missing, c.path, 1) != hidden {
					t.Errorf("%s: hidden %q reads %q; missing %q reads %q", user, c.path, hidden, c.missing, missing)
				}
			}
		}
		sc := h.toolsRead(t, ce, "carol", "search_labels", map[string]any{"full_path": "gitlab-org/orbit", "is_project": true})
		toolsExpectField(t, sc, 3, "pageInfo", "total")
		// A group search by a non-member never includes the private
		// project's labels.
		sc = h.toolsRead(t, ce, "carol", "search_labels", map[string]any{"full_path": "gitlab-org", "is_project": false, "search": "strategy"})
		if n := len(toolsItems(t, sc)); n != 0 {
			t.Errorf("carol sees %d strategy labels in gitlab-org", n)
		}
		for _, g := range h.groups() {
			h.toolsBlocked(t, g, "search_labels", map[string]any{"full_path": "gitlab-org", "is_project": false})
		}
	})
}

func TestTools_semanticSearch(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	toolsAddUser(t, h, "erin") // EE seat, member of nothing
	query := map[string]any{"project_id": "gitlab-org/orbit", "scope": "code", "q": "graph reachable"}

	t.Run("happy path on the EE group", func(t *testing.T) {
		for _, user := range []string{"alice", "root", "erin"} {
			sc := h.toolsRead(t, ee, user, "semantic_search", query)
			items := toolsArray(t, sc["results"])
			if len(items) == 0 {
				t.Fatalf("%s: no results", user)
			}
			toolsExpectField(t, sc, "graph/graph.go", "results", 0, "path")
			toolsExpectField(t, sc, "main", "results", 0, "ref")
			if !strings.Contains(fmt.Sprint(toolsDig(items, 0, "ranges", 0, "content")), "Graph") {
				t.Errorf("range = %v", toolsDig(items, 0, "ranges"))
			}
			// The 19.3 name still answers (an alias), the same way.
			if old := h.toolsRead(t, ee, user, "semantic_code_search", query); !reflect.DeepEqual(old, sc) {
				t.Errorf("semantic_code_search answers differently from semantic_search")
			}
		}
		sc := h.toolsRead(t, ee, "alice", "semantic_code_search", map[string]any{"project_id": "acme/secret-plans", "scope": "code", "q": "nebula", "limit": 1})
		toolsExpectField(t, sc, "plans/nebula.md", "results", 0, "path")
		if n := len(toolsArray(t, sc["results"])); n != 1 {
			t.Errorf("limit 1 returned %d results", n)
		}
	})

	t.Run("the index follows the default branch in git", func(t *testing.T) {
		const indexed = "gitlab-org/indexed"
		// A lean history: one commit on main, a text and a binary file.
		p := toolsAddProject(t, h, "gitlab-org", "indexed")
		f := &repoFixture{t: t, bare: h.Env.Repositories.Path(p.ID), work: filepath.Join(t.TempDir(), "work")}
		f.git("", "clone", "-q", f.bare, f.work)
		f.git(f.work, "checkout", "-q", "-b", "main")
		f.commit("Initial commit", "2026-10-01T10:00:00Z", map[string]string{"README.md": "# GitLab MCP\n\nAn MCP server.\n",
			"bin/logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"})
		f.git(f.work, "push", "-q", "origin", "main")
		search := func(q string) []any {
			t.Helper()
			sc := h.toolsRead(t, ee, "alice", "semantic_search", map[string]any{"project_id": indexed, "scope": "code", "q": q})
			return toolsArray(t, sc["results"])
		}
		// expect checks the results of q are exactly paths, each with its
		// blob on main in git.
		expect := func(q string, paths ...string) {
			t.Helper()
			items := search(q)
			if got := toolsField(items, "path"); strings.Join(got, ",") != strings.Join(paths, ",") {
				t.Fatalf("%q: paths %v, want %v", q, got, paths)
			}
			for k, p := range paths {
				toolsExpectField(t, items, f.git("", "rev-parse", "main:"+p), k, "blob_id")
				toolsExpectField(t, items, "main", k, "ref")
			}
		}
		expect("MCP server", "README.md")
		expect("logo png") // a binary file is not indexed

		// add_commit on the default branch.
		h.toolsWrite(t, ce, "modern", "root", "add_commit", map[string]any{"project_id": indexed, "branch": "main", "commit_message": "Add quetzal",
			"actions": []any{map[string]any{"action": "create", "file_path": "docs/quetzal.md", "content": "The quetzal feeds the index.\n"}}})
		expect("quetzal", "docs/quetzal.md")

		// A push with the git command line, seen by the next search.
		f.git(f.work, "pull", "-q", "--ff-only", "origin", "main")
		f.commit("Add axolotl", "2026-10-06T10:00:00Z", map[string]string{"src/axolotl.go": "package src\n\n// Axolotl regrows.\n"})
		f.git(f.work, "push", "-q", "origin", "main")
		expect("axolotl", "src/axolotl.go")

		// A file deleted in git leaves the results.
		f.git(f.work, "rm", "-q", "docs/quetzal.md")
		gitRun(t, f.work, f.bare, "2026-10-07T10:00:00Z", "commit", "-q", "-m", "Remove quetzal")
		f.git(f.work, "push", "-q", "origin", "main")
		expect("quetzal")
		expect("axolotl", "src/axolotl.go")

		// A commit to another branch changes nothing.
		f.git(f.work, "checkout", "-q", "-b", "feature")
		f.commit("Add pangolin", "2026-10-08T10:00:00Z", map[string]string{"pangolin.txt": "pangolin\n"})
		f.git(f.work, "push", "-q", "origin", "feature")
		expect("pangolin")
		expect("axolotl", "src/axolotl.go")
	})

	t.Run("CE: unknown tool", func(t *testing.T) {
		for _, era := range eras {
			r := h.toolsCall(t, ce, era, "alice", "semantic_code_search", query)
			msg, data := r.expectError(t, rpcStatus(era, 400), -32602)
			if msg != `Tool 'semantic_code_search' not found.` || toolsDig(data, "name") != "semantic_code_search" {
				t.Errorf("%s: message %q data %v", era, msg, data)
			}
		}
	})

	t.Run("validation errors", func(t *testing.T) {
		h.toolsInvalid(t, ee, "alice", "semantic_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "code"}, "'q'")
		h.toolsInvalid(t, ee, "alice", "semantic_search", map[string]any{"project_id": "gitlab-org/orbit", "q": "graph"}, "'scope'")
		h.toolsInvalid(t, ee, "alice", "semantic_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "docs", "q": "graph"}, "/scope")
		h.toolsInvalid(t, ee, "alice", "semantic_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "code", "q": "graph", "knn": 101}, "/knn")
		h.toolsInvalid(t, ee, "alice", "semantic_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "code", "q": "graph", "directory_path": "../x"}, "directory_path")
		h.toolsInvalid(t, ee, "alice", "semantic_code_search", map[string]any{"project_id": "gitlab-org/orbit", "semantic_query": "graph"}, "semantic_query")
		h.toolsInvalid(t, ee, "alice", "semantic_code_search", map[string]any{"scope": "code", "q": "graph"}, "project_id")
		h.toolsInvalid(t, ee, "alice", "semantic_code_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "code", "q": "?!"}, "has no searchable words")
		h.toolsInvalid(t, ee, "alice", "semantic_code_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "code", "q": "graph", "limit": 101}, "/limit")
		h.toolsInvalid(t, ee, "alice", "semantic_code_search", map[string]any{"project_id": "gitlab-org/orbit", "scope": "code", "q": "graph", "knn": 0}, "/knn")
	})

	t.Run("not found", func(t *testing.T) {
		h.toolsFailWith(t, ee, "alice", "semantic_code_search", map[string]any{"project_id": "gitlab-org/nope", "scope": "code", "q": "graph"}, "404 Project Not Found")
	})

	t.Run("permissions", func(t *testing.T) {
		h.toolsSameAsMissing(t, ee, "erin", "semantic_code_search",
			map[string]any{"project_id": "acme/secret-plans", "scope": "code", "q": "nebula"},
			map[string]any{"project_id": "acme/nope", "scope": "code", "q": "nebula"})
		// Users without an EE seat are refused by the group, before the tool.
		for _, user := range []string{"bob", "carol"} {
			for _, era := range eras {
				r := h.toolsCall(t, ee, era, user, "semantic_code_search", query)
				r.expectStatus(t, 403)
				if !strings.Contains(string(r.Body), "seat") {
					t.Errorf("%s: body %s, want the missing seat named", user, r.Body)
				}
			}
		}
		h.toolsBlocked(t, ee, "semantic_code_search", query)
	})
}
