package importexport_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// lines decodes the lines of one relation of an archive.
func lines(t *testing.T, entries []entry, rel string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range entries {
		if e.name != "tree/project/"+rel+".ndjson" {
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(e.body), "\n") {
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			out = append(out, m)
		}
		return out
	}
	t.Fatalf("no %s in the archive", rel)
	return nil
}

var lineCodeFormat = regexp.MustCompile(`\A[0-9a-f]{40}_\d+_\d+\z`)

// Ensure the export writes what glmcp keeps in GitLab's field names, as
// GitLab's importer reads them: merge_params.force_remove_source_branch
// (never the top-level field), issue_type beside work_item_type, every
// diff note with position, original_position and a line code of GitLab's
// format, label priorities and release milestones.
func TestExport_gitlabFieldNames(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		entries := readEntries(t, x.export(t, x.p))

		forced := 0
		diffNotes := 0
		for _, m := range lines(t, entries, "merge_requests") {
			if _, ok := m["force_remove_source_branch"]; ok {
				t.Errorf("merge request !%v has a top-level force_remove_source_branch, which GitLab never writes", m["iid"])
			}
			mp, _ := m["merge_params"].(map[string]any)
			v, ok := mp["force_remove_source_branch"].(string)
			if !ok || v != "0" && v != "1" {
				t.Errorf("merge request !%v merge_params = %v, want force_remove_source_branch \"0\" or \"1\"", m["iid"], m["merge_params"])
			}
			if v == "1" {
				forced++
			}
			for _, n := range m["notes"].([]any) {
				n := n.(map[string]any)
				if n["type"] != models.NoteTypeDiff {
					continue
				}
				diffNotes++
				if n["position"] == nil || n["original_position"] == nil {
					t.Errorf("diff note %v: position %v, original_position %v; GitLab requires both", n["id"], n["position"], n["original_position"])
				}
				if lc, _ := n["line_code"].(string); !lineCodeFormat.MatchString(lc) {
					t.Errorf("diff note %v line_code = %q, not GitLab's format", n["id"], lc)
				}
			}
		}
		if forced != 1 || diffNotes == 0 {
			t.Errorf("%d merge requests with force_remove_source_branch \"1\" (want 1), %d diff notes (want some)", forced, diffNotes)
		}
		tasks := 0
		for _, i := range lines(t, entries, "issues") {
			wit, _ := i["work_item_type"].(map[string]any)
			if wit["base_type"] != i["issue_type"] {
				t.Errorf("issue #%v: issue_type %v, work_item_type %v; want the same type in both", i["iid"], i["issue_type"], i["work_item_type"])
			}
			if strings.HasPrefix(i["title"].(string), "Ünïcødé title") && i["issue_type"] == "task" {
				tasks++
			}
		}
		if tasks != 1 {
			t.Errorf("the task made of issue %q is not exported as a task", "Ünïcødé title")
		}
		for _, l := range lines(t, entries, "labels") {
			ps, _ := l["priorities"].([]any)
			if l["title"] == "bug" {
				if len(ps) != 1 || ps[0].(map[string]any)["priority"] != float64(2) {
					t.Errorf("label bug priorities = %v, want [{priority: 2}]", l["priorities"])
				}
			} else if len(ps) != 0 {
				t.Errorf("label %v priorities = %v, want none", l["title"], ps)
			}
		}
		found := false
		for _, r := range lines(t, entries, "releases") {
			ms, _ := r["milestone_releases"].([]any)
			if r["tag"] == "v9.9.9-ü" {
				found = len(ms) == 1 && ms[0].(map[string]any)["milestone"].(map[string]any)["title"] == "Ünïcødé milestone 🚀"
			} else if len(ms) != 0 {
				t.Errorf("release %v milestone_releases = %v, want none", r["tag"], ms)
			}
		}
		if !found {
			t.Errorf("release v9.9.9-ü does not name its milestone in milestone_releases")
		}
	})
}

// Ensure merge_params is read as GitLab writes it ("1", "0", booleans,
// null) and wins over glmcp's older top-level field, which is still read
// when merge_params says nothing.
func TestImport_mergeParams(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		entries := readEntries(t, x.export(t, x.p))
		cases := []struct {
			params string // the merge_params value ("": none)
			top    string // the top-level field ("": none)
			want   bool
		}{
			{`{"force_remove_source_branch":"1"}`, "", true},
			{`{"force_remove_source_branch":"0"}`, "true", false},
			{`{"force_remove_source_branch":true}`, "", true},
			{`{"force_remove_source_branch":null}`, "true", true},
			{`{}`, "", false},
			{"", "true", true},
		}
		want := map[float64]bool{}
		entries = edit(entries, "tree/project/merge_requests.ndjson", func(body string) string {
			var out []string
			for k, l := range strings.Split(strings.TrimSpace(body), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatal(err)
				}
				c := cases[k%len(cases)]
				delete(m, "merge_params")
				if c.params != "" {
					m["merge_params"] = json.RawMessage(c.params)
				}
				if c.top != "" {
					m["force_remove_source_branch"] = c.top == "true"
				}
				want[m["iid"].(float64)] = c.want
				b, _ := json.Marshal(m)
				out = append(out, string(b))
			}
			return strings.Join(out, "\n") + "\n"
		})
		sum, err := x.importFile(t, writeEntries(t, entries), "copies/params", zeroLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := s.Imports.LoadProjectRecords(context.Background(), sum.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.MergeRequests) < 2 {
			t.Fatalf("%d merge requests, want some", len(r.MergeRequests))
		}
		for _, m := range r.MergeRequests {
			if m.ForceRemoveSourceBranch != want[float64(m.IID)] {
				t.Errorf("merge request !%d force_remove_source_branch = %v, want %v", m.IID, m.ForceRemoveSourceBranch, want[float64(m.IID)])
			}
		}
	})
}

// Ensure a placeholder user goes out as the source user it stands for:
// an archive imported by a user who is no administrator (every author a
// placeholder) and exported again names the original usernames and names,
// never "…_placeholder_N", so an administrator's import of that archive
// maps every author back to the original users.
func TestExport_placeholdersAsSourceUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		ctx := context.Background()
		first, err := x.importFile(t, x.export(t, x.p), "copies/by-bob", zeroLimits, x.w.Bob)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := s.Imports.LoadProjectRecords(ctx, first.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.SourceUsers) != first.Placeholders || first.Placeholders == 0 {
			t.Fatalf("%d source users kept for %d placeholders", len(r.SourceUsers), first.Placeholders)
		}
		for _, su := range r.SourceUsers {
			if su.PlaceholderUserID == nil || su.SourceUsername == "" || su.SourceUserIdentifier == "" || su.Status != models.SourceUserPending {
				t.Errorf("source user %+v: want a placeholder, a username, an identifier, pending", su)
			}
		}
		entries := readEntries(t, x.export(t, first.Project))
		for _, c := range lines(t, entries, "user_contributions") {
			if u, _ := c["username"].(string); strings.Contains(u, "_placeholder_") || strings.HasPrefix(c["name"].(string), "Placeholder ") {
				t.Errorf("user_contributions names %v %q, want the source user", u, c["name"])
			}
		}
		second, err := x.importFile(t, writeEntries(t, entries), "copies/back", zeroLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		if second.Placeholders != 0 {
			t.Errorf("placeholders = %d, want every author mapped back by username", second.Placeholders)
		}
		src, _, err := s.Imports.LoadProjectRecords(ctx, x.p.ID)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := s.Imports.LoadProjectRecords(ctx, second.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		for k := range src.Issues {
			if back.Issues[k].AuthorID != src.Issues[k].AuthorID {
				t.Errorf("issue #%d author %d, want %d", src.Issues[k].IID, back.Issues[k].AuthorID, src.Issues[k].AuthorID)
			}
		}
		for k := range src.Notes {
			if back.Notes[k].AuthorID != src.Notes[k].AuthorID {
				t.Errorf("note %d author %d, want %d", k, back.Notes[k].AuthorID, src.Notes[k].AuthorID)
			}
		}
	})
}
