package spec

import (
	"fmt"
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
		sc = h.toolsRead(t, ce, "bob", "search", map[string]any{"scope": "blobs", "search": "Reachable filename:graph.go", "project_id": "gitlab-org%2Forbit"})
		if got := toolsField(toolsItems(t, sc), "path"); !slices.Equal(got, []string{"graph/graph.go"}) {
			t.Errorf("blobs = %v", got)
		}
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
			{map[string]any{"scope": "wiki_blobs", "search": "x"}, "/scope"},
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
			for _, scope := range []string{"projects", "issues", "work_items", "merge_requests", "notes", "blobs", "users"} {
				for _, term := range []string{"nebula", "secret", "acme", "hooli", "e", "a"} {
					sc := h.toolsRead(t, ce, user, "search", map[string]any{"scope": scope, "search": term, "per_page": 100})
					text := fmt.Sprint(sc)
					for _, leak := range []string{"acme/secret-plans", "Nebula", "Hooli", "Secret Plans"} {
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

	t.Run("CE: unknown tool", func(t *testing.T) {
		for _, era := range eras {
			r := h.toolsCall(t, ce, era, "alice", "semantic_code_search", query)
			msg, data := r.expectError(t, 400, -32602)
			if msg != `Unknown tool: "semantic_code_search"` || toolsDig(data, "name") != "semantic_code_search" {
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
