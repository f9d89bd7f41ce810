package gitlab_test

import (
	"strings"
	"testing"
)

// get_work_item's discussions facet (GitLab 19.5: discussions_first,
// default 20; discussions_after; discussions_filter all_notes,
// only_comments, only_activity) and its notes paging (notes_first, default
// 100; notes_after; notes_last; notes_before). The fixture's issue has
// seven notes in five threads: a comment, a thread of three, a system
// note, and two comments of the same minute.
func TestGetWorkItem_discussionsFacet(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	args := func(kv ...any) map[string]any {
		out := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": f.Issue.IID, "include": []any{"discussions"}}
		for k := 0; k < len(kv); k += 2 {
			out[kv[k].(string)] = kv[k+1]
		}
		return out
	}
	widget := func(t *testing.T, m map[string]any) map[string]any {
		t.Helper()
		for _, x := range get(t, m, "widgets").([]any) {
			if w := x.(map[string]any); w["type"] == "NOTES" {
				return w
			}
		}
		t.Fatalf("no NOTES widget in %v", m)
		return nil
	}
	// threads returns each discussion's note bodies, joined by " | ".
	threads := func(t *testing.T, conn any) []string {
		t.Helper()
		var out []string
		for _, d := range get(t, conn, "nodes").([]any) {
			var bodies []string
			for _, n := range get(t, d, "notes", "nodes").([]any) {
				bodies = append(bodies, n.(map[string]any)["body"].(string))
			}
			out = append(out, strings.Join(bodies, " | "))
		}
		return out
	}

	t.Run("all notes by default: every thread with its notes, system notes included", func(t *testing.T) {
		nw := widget(t, w.ok(t, w.Alice, "get_work_item", args()))
		if _, ok := nw["notes"]; ok {
			t.Errorf("the discussions facet also returned the notes facet: %v", nw)
		}
		conn := nw["discussions"]
		jsonEq(t, "threads", threads(t, conn), []string{"First zebrafish comment",
			"Thread start | Thread reply | Thread second reply", "added ~zebrafish label", "Same minute A", "Same minute B"})
		wantFields(t, "pageInfo", get(t, conn, "pageInfo"), map[string]any{"hasNextPage": false, "hasPreviousPage": false})
		wantFields(t, "the thread", get(t, conn, "nodes", 1), map[string]any{
			"id": "gid://gitlab/Discussion/" + f.ThreadID, "individualNote": false})
		wantFields(t, "the system note", get(t, conn, "nodes", 2, "notes", "nodes", 0), map[string]any{"system": true})
		jsonEq(t, "explicit all_notes", threads(t, widget(t, w.ok(t, w.Alice, "get_work_item",
			args("discussions_filter", "all_notes")))["discussions"]), threads(t, conn))
	})

	t.Run("only_comments leaves system notes out; only_activity keeps only them", func(t *testing.T) {
		jsonEq(t, "only_comments", threads(t, widget(t, w.ok(t, w.Alice, "get_work_item",
			args("discussions_filter", "only_comments")))["discussions"]),
			[]string{"First zebrafish comment", "Thread start | Thread reply | Thread second reply", "Same minute A", "Same minute B"})
		jsonEq(t, "only_activity", threads(t, widget(t, w.ok(t, w.Alice, "get_work_item",
			args("discussions_filter", "only_activity")))["discussions"]), []string{"added ~zebrafish label"})
	})

	t.Run("discussions_first and discussions_after page the threads", func(t *testing.T) {
		var got []string
		var after any
		for pages := 1; ; pages++ {
			a := args("discussions_first", 2)
			if after != nil {
				a["discussions_after"] = after
			}
			conn := widget(t, w.ok(t, w.Alice, "get_work_item", a))["discussions"]
			page := threads(t, conn)
			if len(page) > 2 {
				t.Fatalf("page %d has %d threads, want at most 2", pages, len(page))
			}
			got = append(got, page...)
			if get(t, conn, "pageInfo", "hasPreviousPage") != (pages > 1) {
				t.Errorf("page %d hasPreviousPage = %v", pages, get(t, conn, "pageInfo", "hasPreviousPage"))
			}
			if get(t, conn, "pageInfo", "hasNextPage") != true {
				if pages != 3 {
					t.Errorf("%d pages of 2 for 5 threads, want 3", pages)
				}
				break
			}
			if after = get(t, conn, "pageInfo", "endCursor"); pages > 5 {
				t.Fatal("walk does not end")
			}
		}
		if len(got) != 5 || got[1] != "Thread start | Thread reply | Thread second reply" || got[4] != "Same minute B" {
			t.Errorf("walked threads %q", got)
		}
		// A cursor is bound to its filter, and to the discussions facet.
		first := widget(t, w.ok(t, w.Alice, "get_work_item", args("discussions_first", 1)))["discussions"]
		end := get(t, first, "pageInfo", "endCursor")
		msg := w.fails(t, w.Alice, "get_work_item", args("discussions_first", 1, "discussions_after", end,
			"discussions_filter", "only_comments"), "Validation error: discussions_after: ")
		if !strings.Contains(msg, "(it was returned for other arguments)") {
			t.Errorf("a cursor of another filter: %q", msg)
		}
		w.fails(t, w.Alice, "get_work_item", args("discussions_after", "forged"),
			`Validation error: discussions_after: "forged" is not a cursor of this list (it was made up or altered)`)
	})

	t.Run("schema bounds; parameters of a facet not asked for are refused", func(t *testing.T) {
		for _, a := range []map[string]any{args("discussions_filter", "ONLY_COMMENTS"), args("discussions_first", 101),
			args("discussions_first", 0)} {
			res := w.call(t, w.Alice, "get_work_item", a)
			if !res.IsError || !strings.Contains(res.Text, "discussions_") {
				t.Errorf("%v: %+v, want a refusal naming the parameter", a, res)
			}
		}
		want := `Validation error: discussions_first, discussions_after and discussions_filter apply only when include is ["discussions"]`
		plain := args("discussions_filter", "only_activity")
		delete(plain, "include")
		w.fails(t, w.Alice, "get_work_item", plain, want)
		w.fails(t, w.Alice, "get_work_item", args("include", []any{"notes"}, "discussions_first", 2), want)
		w.fails(t, w.Alice, "get_work_item", args("notes_first", 2),
			`Validation error: notes_first, notes_after, notes_last and notes_before apply only when include is ["notes"]`)
	})
}

func TestGetWorkItem_notesPaging(t *testing.T) {
	w := newWorld(t)
	f := w.fixture(t)
	args := func(kv ...any) map[string]any {
		out := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": f.Issue.IID, "include": []any{"notes"}}
		for k := 0; k < len(kv); k += 2 {
			out[kv[k].(string)] = kv[k+1]
		}
		return out
	}
	notes := func(t *testing.T, a map[string]any) (bodies []string, pi map[string]any) {
		t.Helper()
		for _, x := range get(t, w.ok(t, w.Alice, "get_work_item", a), "widgets").([]any) {
			if wd := x.(map[string]any); wd["type"] == "NOTES" {
				for _, n := range get(t, wd, "notes", "nodes").([]any) {
					bodies = append(bodies, n.(map[string]any)["body"].(string))
				}
				jsonEq(t, "count", get(t, wd, "notes", "count"), 7)
				return bodies, get(t, wd, "notes", "pageInfo").(map[string]any)
			}
		}
		t.Fatal("no NOTES widget")
		return nil, nil
	}
	all := []string{"First zebrafish comment", "Thread start", "Thread reply", "Thread second reply", "added ~zebrafish label",
		"Same minute A", "Same minute B"}

	t.Run("default: the first 100", func(t *testing.T) {
		got, pi := notes(t, args())
		jsonEq(t, "notes", got, all)
		wantFields(t, "pageInfo", pi, map[string]any{"hasNextPage": false, "hasPreviousPage": false})
	})

	t.Run("notes_first and notes_after walk forward", func(t *testing.T) {
		p1, pi := notes(t, args("notes_first", 3))
		jsonEq(t, "page 1", p1, all[:3])
		wantFields(t, "page 1 pageInfo", pi, map[string]any{"hasNextPage": true, "hasPreviousPage": false})
		p2, pi := notes(t, args("notes_first", 3, "notes_after", pi["endCursor"]))
		jsonEq(t, "page 2", p2, all[3:6])
		wantFields(t, "page 2 pageInfo", pi, map[string]any{"hasNextPage": true, "hasPreviousPage": true})
		// The facet's cursor continues with get_workitem_notes too.
		rest := w.ok(t, w.Alice, "get_workitem_notes", map[string]any{"project_id": "gitlab-org/gitlab-mcp",
			"work_item_iid": f.Issue.IID, "after": pi["endCursor"]})
		jsonEq(t, "get_workitem_notes after the facet's page", field(t, items(t, rest), "body"), []any{all[6]})
	})

	t.Run("notes_last and notes_before walk backward", func(t *testing.T) {
		last, pi := notes(t, args("notes_last", 2))
		jsonEq(t, "newest two", last, all[5:])
		wantFields(t, "pageInfo", pi, map[string]any{"hasNextPage": false, "hasPreviousPage": true})
		before, pi := notes(t, args("notes_last", 3, "notes_before", pi["startCursor"]))
		jsonEq(t, "the three before", before, all[2:5])
		wantFields(t, "pageInfo before", pi, map[string]any{"hasNextPage": true, "hasPreviousPage": true})
		rest, _ := notes(t, args("notes_before", pi["startCursor"]))
		jsonEq(t, "everything before, default size", rest, all[:2])
	})

	t.Run("refusals", func(t *testing.T) {
		_, pi := notes(t, args("notes_first", 1))
		w.fails(t, w.Alice, "get_work_item", args("notes_first", 1, "notes_last", 1),
			"Validation error: Provide notes_first/notes_after or notes_last/notes_before, not both directions")
		w.fails(t, w.Alice, "get_work_item", args("notes_after", pi["endCursor"], "notes_before", pi["endCursor"]),
			"Validation error: Provide notes_first/notes_after or notes_last/notes_before, not both directions")
		w.fails(t, w.Alice, "get_work_item", args("notes_after", "forged"),
			`Validation error: notes_after: "forged" is not a cursor of this list (it was made up or altered)`)
		// Another work item's cursor does not page this one.
		other := map[string]any{"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": f.Secret.IID, "include": []any{"notes"}}
		var end any
		for _, x := range get(t, w.ok(t, w.Alice, "get_work_item", other), "widgets").([]any) {
			if wd := x.(map[string]any); wd["type"] == "NOTES" {
				end = get(t, wd, "notes", "pageInfo", "endCursor")
			}
		}
		msg := w.fails(t, w.Alice, "get_work_item", args("notes_after", end), "Validation error: notes_after: ")
		if !strings.Contains(msg, "(it was returned for other arguments)") {
			t.Errorf("another work item's cursor: %q", msg)
		}
		res := w.call(t, w.Alice, "get_work_item", args("notes_first", 101))
		if !res.IsError || !strings.Contains(res.Text, "notes_first") {
			t.Errorf("notes_first 101: %+v", res)
		}
	})
}
