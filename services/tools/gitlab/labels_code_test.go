package gitlab_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

func TestSearchLabels(t *testing.T) {
	w := newWorld(t)
	w.fixture(t)
	names := func(t *testing.T, m map[string]any) []any { return field(t, items(t, m), "name") }

	m := w.ok(t, w.Stranger, "search_labels", `{"full_path":"gitlab-org/gitlab-mcp","is_project":true,"search":"ZEBRA"}`)
	jsonEq(t, "project labels", items(t, m), []map[string]any{{"id": get(t, items(t, m)[0], "id"), "name": "zebrafish",
		"color": "#ffcc00", "text_color": "#1F1E24", "description": "Fish", "is_project_label": true}})

	// Group search covers the projects of the group; a name is listed once.
	jsonEq(t, "group", names(t, w.ok(t, w.Stranger, "search_labels", `{"full_path":"gitlab-org","is_project":false,"search":"zebrafish"}`)),
		[]string{"zebrafish", "zebrafish::ops"})
	m = w.ok(t, w.Stranger, "search_labels", `{"full_path":"gitlab-org","is_project":false,"search":["ops","no-such-label"]}`)
	jsonEq(t, "several terms", names(t, m), []string{"zebrafish::ops"})
	wantFields(t, "dark label", items(t, m)[0], map[string]any{"color": "#112233", "text_color": "#FFFFFF"})
	all := names(t, w.ok(t, w.Stranger, "search_labels", `{"full_path":"gitlab-org/gitlab-mcp","is_project":true}`))
	if len(all) < 2 || !strings.Contains(strings.Join(toStrings(all), ","), "zebrafish") {
		t.Errorf("all labels = %v", all)
	}

	// Private project and group: alice sees them, others get GitLab's message.
	jsonEq(t, "private group, member", names(t, w.ok(t, w.Alice, "search_labels", `{"full_path":"acme","is_project":false,"search":"zebra"}`)),
		[]string{"zebrafish-secret"})
	w.fails(t, w.Bob, "search_labels", `{"full_path":"acme","is_project":false}`, "Group 'acme' not found or inaccessible")
	w.fails(t, w.Stranger, "search_labels", `{"full_path":"acme/secret-plans","is_project":true}`,
		"Project 'acme/secret-plans' not found or inaccessible")
	w.fails(t, w.Stranger, "search_labels", `{"full_path":"acme/nope","is_project":true}`, "Project 'acme/nope' not found or inaccessible")
	// A project path given as a group is not a group.
	w.fails(t, w.Alice, "search_labels", `{"full_path":"gitlab-org/gitlab-mcp","is_project":false}`,
		"Group 'gitlab-org/gitlab-mcp' not found or inaccessible")
}

func toStrings(a []any) []string {
	out := make([]string, len(a))
	for k, v := range a {
		out[k], _ = v.(string)
	}
	return out
}

func TestSemanticCodeSearch(t *testing.T) {
	w := newWorld(t)
	w.fixture(t)
	orbit := w.project("gitlab-org/orbit")
	ctx := context.Background()
	files := map[string]string{
		"search/rank.go": "package search\n\n// Rank orders zebrafish results.\n// The zebrafish zebrarank score is a float.\n" +
			"func Rank(zebrafish []string) []string {\n\treturn zebrafish // zebrarank\n}\n",
		"search/other.go": "package search\n\nfunc Other() {}\n" + strings.Repeat("// filler\n", 30) + "// one zebrarank here\n",
	}
	repo, err := storetest.Repositories(t, w.st).Repository(ctx, orbit.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var actions []repository.Action
	for p, c := range files {
		actions = append(actions, repository.Action{Action: "create", FilePath: p, Content: []byte(c), HasContent: true})
	}
	sig := repository.Signature{Name: "Alice", Email: "alice@example.com"}
	if _, err := repo.CommitFiles(ctx, repository.CommitFilesRequest{Branch: "main", Message: "Add search", Author: sig, Actions: actions}); err != nil {
		t.Fatal(err)
	}
	ee := callOpts{edition: models.EditionEE}

	m := w.ok(t, w.Stranger, "semantic_code_search", `{"scope":"code","q":"How is the zebrafish zebrarank?","project_id":"gitlab-org/orbit"}`, ee)
	list := get(t, m, "results").([]any)
	paths := toStrings(field(t, list, "path"))
	if len(paths) != 3 || paths[0] != "search/rank.go" {
		t.Fatalf("paths = %v, want search/rank.go first of the 3 files that match", paths)
	}
	var scores []float64
	for _, it := range list {
		scores = append(scores, get(t, it, "score").(float64))
	}
	for k := 1; k < len(scores); k++ {
		if scores[k] > scores[k-1] || scores[k] <= 0 {
			t.Errorf("scores %v are not positive and descending", scores)
		}
	}
	wantFields(t, "top hit", list[0], map[string]any{"project_id": orbit.ID, "ref": "main",
		"blob_id": models.GitBlobID(files["search/rank.go"]), "web_url": publicURL + "/gitlab-org/orbit/-/blob/main/search/rank.go#L1-7"})
	wantFields(t, "top hit range", get(t, list[0], "ranges").([]any)[0], map[string]any{"start_line": 1, "end_line": 7,
		"content": "1: package search\n2: \n3: // Rank orders zebrafish results.\n4: // The zebrafish zebrarank score is a float.\n" +
			"5: func Rank(zebrafish []string) []string {\n6: \treturn zebrafish // zebrarank\n7: }"})
	other := get(t, list[indexOf(paths, "search/other.go")], "ranges").([]any)[0]
	wantFields(t, "snippet around the match", other, map[string]any{"start_line": 23, "end_line": 34})
	if s := get(t, other, "content").(string); !strings.HasSuffix(s, "34: // one zebrarank here") {
		t.Errorf("snippet = %q", s)
	}

	dir := w.ok(t, w.Stranger, "semantic_code_search", `{"scope":"code","q":"zebrafish","project_id":"gitlab-org/orbit","directory_path":"docs/"}`, ee)
	jsonEq(t, "directory", field(t, get(t, dir, "results").([]any), "path"), []string{"docs/zebrafish.md"})
	one := w.ok(t, w.Stranger, "semantic_code_search", `{"scope":"code","q":"zebrafish zebrarank","project_id":"gitlab-org/orbit","limit":1}`, ee)
	jsonEq(t, "limit", field(t, get(t, one, "results").([]any), "path"), []string{"search/rank.go"})
	none := w.ok(t, w.Stranger, "semantic_code_search", `{"scope":"code","q":"quetzalcoatl","project_id":"gitlab-org/orbit"}`, ee)
	jsonEq(t, "no match", get(t, none, "results"), []any{})

	w.fails(t, w.Stranger, "semantic_code_search", `{"scope":"code","q":"zebrafish","project_id":"acme/secret-plans"}`, "404 Project Not Found", ee)
	jsonEq(t, "private member", field(t, get(t, w.ok(t, w.Alice, "semantic_code_search",
		`{"scope":"code","q":"zebrafish","project_id":"acme/secret-plans"}`, ee), "results").([]any), "path"), []string{"zebrafish.txt"})
	w.fails(t, w.Alice, "semantic_code_search", `{"scope":"code","q":"?!","project_id":"gitlab-org/orbit"}`,
		"Validation error: q: has no searchable words", ee)
	w.fails(t, w.Alice, "semantic_search", `{"scope":"code","q":"zebrafish","project_id":"gitlab-org/orbit","directory_path":"/etc"}`,
		"Validation error: directory_path: must be a relative path without a leading slash or .. segments", ee)
	w.fails(t, w.Alice, "semantic_search", `{"scope":"code","q":"zebrafish","project_id":"gitlab-org/orbit","directory_path":"a/../b"}`,
		"Validation error: directory_path: must be a relative path without a leading slash or .. segments", ee)
	// The CE group does not serve the EE tool: it does not exist there.
	_, err = w.try(w.Alice, "semantic_code_search", `{"scope":"code","q":"zebrafish","project_id":"gitlab-org/orbit"}`,
		callOpts{edition: models.EditionCE})
	var unknown *tools.UnknownToolError
	if !errors.As(err, &unknown) {
		t.Errorf("semantic_code_search on CE: error %v, want *tools.UnknownToolError", err)
	}
}

func indexOf(list []string, s string) int {
	for k, v := range list {
		if v == s {
			return k
		}
	}
	return -1
}

// TestWritesRollBack: a store failure after a write tool has written
// (labels) rolls the whole call back, for every write tool.
func TestWritesRollBack(t *testing.T) {
	boom := errors.New("disk on fire")
	faulty := &faultyStore{createIssue: boom, createMergeRequest: boom, createNote: boom}
	w := newWorldWith(t, storetest.Open(t), faulty.wrap)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"create_issue", map[string]any{"id": "gitlab-org/gitlab-mcp", "title": "x", "labels": []string{"brand-new", "another"},
			"assignee_ids": []int64{w.Alice.ID}}},
		{"create_merge_request", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "title": "x", "labels": []string{"brand-new"},
			"source_branch": "main", "target_branch": "feature/server-discover", "reviewer_ids": []int64{w.Bob.ID}}},
		{"create_workitem_note", map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1, "body": "x"}},
	}
	for _, c := range calls {
		t.Run(c.tool, func(t *testing.T) {
			before := w.state(t)
			_, err := w.try(w.Root, c.tool, c.args)
			if !errors.Is(err, boom) {
				t.Fatalf("error = %v, want the store's failure as a server error", err)
			}
			w.unchanged(t, before)
		})
	}
}
