package gitlab_test

import (
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestSearch(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	mcp := w.project("gitlab-org/gitlab-mcp")

	search := func(t *testing.T, u *models.User, args map[string]any) map[string]any {
		t.Helper()
		if _, ok := args["search"]; !ok {
			args["search"] = "zebrafish"
		}
		return w.ok(t, u, "search", args)
	}
	ids := func(t *testing.T, m map[string]any) []any { return field(t, items(t, m), "id") }
	total := func(t *testing.T, m map[string]any) any { return get(t, m, "pageInfo", "total") }

	t.Run("issues: visibility and confidentiality per user", func(t *testing.T) {
		cases := []struct {
			name string
			user func() *models.User
			want []int64
		}{
			{"non-member", func() *models.User { return w.Stranger }, []int64{f.Internal.ID, f.Issue.ID}},
			{"guest", func() *models.User { return w.Carol }, []int64{f.Internal.ID, f.Issue.ID}},
			{"reporter", func() *models.User { return w.Bob }, []int64{f.Internal.ID, f.Secret.ID, f.Issue.ID}},
			{"author, private member", func() *models.User { return w.Alice }, []int64{f.Internal.ID, f.Private.ID, f.Secret.ID, f.Issue.ID}},
			{"admin", func() *models.User { return w.Root }, []int64{f.Internal.ID, f.Private.ID, f.Secret.ID, f.Issue.ID}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				m := search(t, c.user(), map[string]any{"scope": "issues"})
				jsonEq(t, "ids", ids(t, m), c.want)
				jsonEq(t, "total", total(t, m), len(c.want)) // no count of hidden issues
			})
		}
		m := search(t, w.Alice, map[string]any{"scope": "work_items", "search": "ZEBRAFISH CRASH"})
		list := items(t, m)
		jsonEq(t, "work_items", field(t, list, "id"), []int64{f.Issue.ID})
		wantFields(t, "issue hit", list[0], map[string]any{"iid": f.Issue.IID, "title": "Zebrafish crash in tools/list",
			"web_url": publicURL + "/gitlab-org/gitlab-mcp/-/issues/" + itoa(f.Issue.IID),
			"references": map[string]any{"short": "#" + itoa(f.Issue.IID), "relative": "#" + itoa(f.Issue.IID),
				"full": "gitlab-org/gitlab-mcp#" + itoa(f.Issue.IID)}})
		wantFields(t, "issue author", get(t, list[0], "author"), map[string]any{"username": "root"})
		// A hit's user_notes_count counts its public notes, not system ones.
		public, err := w.st.Issues.CountUserNotes(t.Context(), models.NoteableIssue, f.Issue.ID, false)
		if err != nil || public < 6 {
			t.Fatalf("public notes of the fixture's issue = %d, %v", public, err)
		}
		jsonEq(t, "user_notes_count", get(t, list[0], "user_notes_count"), public)
	})

	t.Run("issues: filters, order, pages", func(t *testing.T) {
		jsonEq(t, "confidential=false", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "confidential": false})),
			[]int64{f.Internal.ID, f.Private.ID, f.Issue.ID})
		jsonEq(t, "confidential=true", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "confidential": true})),
			[]int64{f.Secret.ID})
		jsonEq(t, "closed", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "state": "closed"})), []int64{f.Internal.ID})
		jsonEq(t, "all", total(t, search(t, w.Alice, map[string]any{"scope": "issues", "state": "all"})), 4)
		jsonEq(t, "description", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "search": "client crashes"})), []int64{f.Issue.ID})
		jsonEq(t, "title only", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "search": "client crashes", "fields": []string{"title"}})), []any{})
		jsonEq(t, "asc", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "sort": "asc", "order_by": "created_at"})),
			[]int64{f.Issue.ID, f.Secret.ID, f.Private.ID, f.Internal.ID})
		m := search(t, w.Alice, map[string]any{"scope": "issues", "per_page": 1, "page": 2})
		jsonEq(t, "page 2", ids(t, m), []int64{f.Private.ID})
		jsonEq(t, "pageInfo", m["pageInfo"], map[string]any{"page": 2, "per_page": 1, "total": 4, "total_pages": 4, "next_page": 3, "prev_page": 1})
		// LIKE wildcards in the term are literal.
		jsonEq(t, "wildcards", total(t, search(t, w.Root, map[string]any{"scope": "issues", "search": "%"})), 0)
		jsonEq(t, "underscore", total(t, search(t, w.Root, map[string]any{"scope": "issues", "search": "zebra_ish"})), 0)
	})

	t.Run("levels: group and project", func(t *testing.T) {
		jsonEq(t, "group gitlab-org", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "group_id": "gitlab-org"})),
			[]int64{f.Internal.ID, f.Secret.ID, f.Issue.ID})
		acme := w.Groups["acme"]
		jsonEq(t, "private group, member", ids(t, search(t, w.Alice, map[string]any{"scope": "issues", "group_id": acme.ID})),
			[]int64{f.Private.ID})
		w.fails(t, w.Bob, "search", map[string]any{"scope": "issues", "search": "x", "group_id": "acme"}, "404 Group Not Found")
		w.fails(t, w.Stranger, "search", map[string]any{"scope": "issues", "search": "x", "group_id": "nope"}, "404 Group Not Found")
		jsonEq(t, "project", ids(t, search(t, w.Bob, map[string]any{"scope": "issues", "project_id": "gitlab-org%2Fgitlab-mcp"})),
			[]int64{f.Secret.ID, f.Issue.ID})
		jsonEq(t, "project wins over group", ids(t, search(t, w.Bob, map[string]any{"scope": "issues", "project_id": mcp.ID, "group_id": "acme"})),
			[]int64{f.Secret.ID, f.Issue.ID})
		w.fails(t, w.Stranger, "search", map[string]any{"scope": "issues", "search": "x", "project_id": "acme/secret-plans"}, "404 Project Not Found")
		w.fails(t, w.Alice, "search", map[string]any{"scope": "projects", "search": "x", "project_id": mcp.ID},
			"Validation error: scope: projects cannot be searched within a project")
		w.fails(t, w.Alice, "search", map[string]any{"scope": "issues", "search": "   "}, "Validation error: search: must not be blank")
	})

	t.Run("merge requests", func(t *testing.T) {
		m := search(t, w.Stranger, map[string]any{"scope": "merge_requests"})
		list := items(t, m)
		jsonEq(t, "ids", field(t, list, "id"), []int64{f.MR.ID})
		wantFields(t, "hit", list[0], map[string]any{"iid": f.MR.IID, "source_branch": "zebrafish/feature",
			"web_url": publicURL + "/gitlab-org/gitlab-mcp/-/merge_requests/" + itoa(f.MR.IID)})
		jsonEq(t, "merged only", total(t, search(t, w.Stranger, map[string]any{"scope": "merge_requests", "state": "merged"})), 0)
		jsonEq(t, "opened", total(t, search(t, w.Stranger, map[string]any{"scope": "merge_requests", "state": "opened"})), 1)
	})

	t.Run("notes: internal and confidential stay hidden", func(t *testing.T) {
		count := map[string]int{}
		for name, u := range map[string]*models.User{"stranger": w.Stranger, "carol": w.Carol, "bob": w.Bob, "alice": w.Alice, "root": w.Root} {
			count[name] = len(items(t, search(t, u, map[string]any{"scope": "notes"})))
		}
		jsonEq(t, "notes per user", count, map[string]int{"stranger": 1, "carol": 1, "bob": 3, "alice": 4, "root": 4})
		m := search(t, w.Stranger, map[string]any{"scope": "notes"})
		wantFields(t, "note hit", items(t, m)[0], map[string]any{"id": f.Notes[0].ID, "body": "First zebrafish comment",
			"noteable_type": "Issue", "noteable_iid": f.Issue.IID, "system": false})
		jsonEq(t, "total", total(t, m), 1)
		jsonEq(t, "bob in project", total(t, search(t, w.Bob, map[string]any{"scope": "notes", "project_id": mcp.ID})), 3)
		jsonEq(t, "system notes are not searched", total(t, search(t, w.Root, map[string]any{"scope": "notes", "search": "added ~zebrafish"})), 0)
	})

	t.Run("blobs and commits read one project's repository", func(t *testing.T) {
		// The git side is specified over HTTP (spec/tools_search_test.go),
		// where the projects have repositories.
		for _, scope := range []string{"blobs", "commits"} {
			for _, args := range []map[string]any{{"scope": scope, "search": "x"}, {"scope": scope, "search": "x", "group_id": "gitlab-org"}} {
				if got := w.fails(t, w.Alice, "search", args, "Validation error: "); !strings.Contains(got, "give project_id") {
					t.Errorf("%v: %q", args, got)
				}
			}
		}
	})

	t.Run("milestones, wiki pages, groups and snippets", func(t *testing.T) {
		m := search(t, w.Stranger, map[string]any{"scope": "milestones", "search": "protocol revision"})
		wantFields(t, "milestone", items(t, m)[0], map[string]any{"title": "18.8", "project_id": mcp.ID, "state": "active",
			"web_url": publicURL + "/gitlab-org/gitlab-mcp/-/milestones/2"})
		jsonEq(t, "wiki", field(t, items(t, search(t, w.Carol, map[string]any{"scope": "wiki_blobs", "search": "always on", "project_id": mcp.ID})), "filename"),
			[]string{"toolsets.md"})
		jsonEq(t, "groups", field(t, items(t, search(t, w.Stranger, map[string]any{"scope": "groups", "search": "labs"})), "full_path"),
			[]string{"gitlab-org/labs"})
		jsonEq(t, "private group hidden", total(t, search(t, w.Stranger, map[string]any{"scope": "groups", "search": "acme"})), 0)
		jsonEq(t, "private group for a member", total(t, search(t, w.Alice, map[string]any{"scope": "groups", "search": "acme"})), 1)
		jsonEq(t, "snippets", total(t, search(t, w.Alice, map[string]any{"scope": "snippet_titles"})), 0)
	})

	t.Run("projects and users", func(t *testing.T) {
		jsonEq(t, "private project hidden", total(t, search(t, w.Stranger, map[string]any{"scope": "projects", "search": "secret-plans"})), 0)
		m := search(t, w.Alice, map[string]any{"scope": "projects", "search": "secret-plans"})
		wantFields(t, "project", items(t, m)[0], map[string]any{"path_with_namespace": "acme/secret-plans", "visibility": "private",
			"web_url": publicURL + "/acme/secret-plans", "default_branch": "main", "name_with_namespace": "acme / Secret Plans"})
		jsonEq(t, "group projects", field(t, items(t, search(t, w.Stranger, map[string]any{"scope": "projects", "search": "o", "group_id": "gitlab-org", "sort": "asc"})), "path"),
			[]string{"gitlab-mcp", "orbit"})
		m = search(t, w.Carol, map[string]any{"scope": "users", "search": "stranger"})
		jsonEq(t, "user hit", items(t, m), []map[string]any{{"id": w.Stranger.ID, "username": "stranger", "name": "Sam Stranger",
			"state": "active", "locked": false, "avatar_url": nil, "web_url": publicURL + "/stranger"}})
		jsonEq(t, "blocked users hidden", total(t, search(t, w.Carol, map[string]any{"scope": "users", "search": "dave"})), 0)
		jsonEq(t, "admins see blocked users", total(t, search(t, w.Root, map[string]any{"scope": "users", "search": "dave"})), 1)
		jsonEq(t, "project member", field(t, items(t, search(t, w.Carol, map[string]any{"scope": "users", "search": "carol", "project_id": mcp.ID})), "username"),
			[]string{"carol"})
		jsonEq(t, "not a project member", total(t, search(t, w.Carol, map[string]any{"scope": "users", "search": "stranger", "project_id": mcp.ID})), 0)
		jsonEq(t, "members of a group's projects", total(t, search(t, w.Carol, map[string]any{"scope": "users", "search": "alice", "group_id": "gitlab-org"})), 1)
	})

	t.Run("progress", func(t *testing.T) {
		var got []float64
		var totals []float64
		var msgs []string
		opts := callOpts{progress: func(p, total float64, msg string) {
			got, totals, msgs = append(got, p), append(totals, total), append(msgs, msg)
		}}
		w.ok(t, w.Bob, "search", map[string]any{"scope": "issues", "search": "zebrafish", "project_id": mcp.ID}, opts)
		jsonEq(t, "progress", got, []float64{0, 1, 2, 3})
		jsonEq(t, "totals", totals, []float64{3, 3, 3, 3})
		if !strings.Contains(msgs[1], "issues in project gitlab-org/gitlab-mcp") || !strings.Contains(msgs[2], "Found 2 result(s)") {
			t.Errorf("messages = %q", msgs)
		}
	})
}
