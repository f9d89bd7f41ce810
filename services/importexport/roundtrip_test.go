package importexport_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Ensure a project exported and imported under another path by an
// administrator holds the same rows (ids aside) and the same repository:
// members, labels, milestones, issues with assignees and internal notes,
// merge requests with diff notes, resolutions and approvals, pipelines
// with jobs, releases with links, unicode and a 400 KB description.
func TestExportImport_roundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		file := x.export(t, x.p)
		sum, err := x.importFile(t, file, "copies/gitlab-mcp", zeroLimits, nil)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		if sum.Project.PathWithNamespace != "copies/gitlab-mcp" || sum.Project.DefaultBranch != x.p.DefaultBranch ||
			sum.Project.Description != x.p.Description || sum.Project.Visibility != x.p.Visibility {
			t.Errorf("project = %+v, want the attributes of %+v", sum.Project, x.p)
		}
		if sum.Placeholders != 0 {
			t.Errorf("placeholders = %d, want 0 (every author is a member, mapped by username)", sum.Placeholders)
		}
		want, got := records(t, s, x.p.ID), records(t, s, sum.Project.ID)
		if want != got {
			t.Errorf("imported records differ from the exported project's:\n%s", diffLines(want, got))
		}
		for _, rel := range []string{"issues", "merge_requests", "notes", "ci_pipelines", "releases", "labels", "milestones", "wiki pages"} {
			if sum.Imported[rel] == 0 {
				t.Errorf("imported %s = 0, want the project's (summary %v)", rel, sum.Imported)
			}
		}
		if r1, r2 := refs(t, x.repos.Path(x.p.ID)), refs(t, x.repos.Path(sum.Project.ID)); r1 != r2 {
			t.Errorf("repository refs:\n%s\nwant\n%s", r2, r1)
		}
		// The copy is a new, working project: new issues continue its
		// numbers.
		ctx := context.Background()
		i := &models.Issue{ProjectID: sum.Project.ID, Title: "after the import", AuthorID: x.w.Alice.ID}
		if err := s.Issues.CreateIssue(ctx, i); err != nil {
			t.Fatal(err)
		}
		var maxIID int64
		r, _, _ := s.Imports.LoadProjectRecords(ctx, x.p.ID)
		for _, is := range r.Issues {
			maxIID = max(maxIID, is.IID)
		}
		if i.IID != maxIID+1 {
			t.Errorf("next issue iid = %d, want %d", i.IID, maxIID+1)
		}
	})
}

// Ensure an import by a user who is no administrator attributes nothing
// to existing users: every source user becomes one blocked placeholder
// user named after it, placeholders get no membership, and the importer
// becomes a maintainer.
func TestImport_placeholderUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		ctx := context.Background()
		sum, err := x.importFile(t, x.export(t, x.p), "copies/by-bob", zeroLimits, x.w.Bob)
		if err != nil {
			t.Fatal(err)
		}
		if sum.MappedUsers != 0 || sum.Placeholders == 0 {
			t.Errorf("mapped %d, placeholders %d; want 0 mapped, some placeholders", sum.MappedUsers, sum.Placeholders)
		}
		r, users, err := s.Imports.LoadProjectRecords(ctx, sum.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Members) != 1 || r.Members[0].UserID != x.w.Bob.ID || r.Members[0].AccessLevel != models.AccessLevel(40) {
			t.Errorf("members = %+v, want only bob as maintainer", r.Members)
		}
		src, srcUsers, err := s.Imports.LoadProjectRecords(ctx, x.p.ID)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for k, i := range r.Issues {
			u := users[i.AuthorID]
			want := srcUsers[src.Issues[k].AuthorID]
			if u.State != models.UserBlocked || !strings.HasPrefix(u.Username, want.Username+"_placeholder_") ||
				u.Name != "Placeholder "+want.Username && u.Name != "Placeholder "+want.Name {
				t.Errorf("issue #%d author = %+v, want a blocked placeholder of %s", i.IID, u, want.Username)
			}
			seen[u.ID] = true
		}
		// One placeholder per source user, whatever it authored.
		for k, n := range r.Notes {
			if want := srcUsers[src.Notes[k].AuthorID]; !strings.HasPrefix(users[n.AuthorID].Username, want.Username+"_placeholder_") {
				t.Errorf("note author %s, want the placeholder of %s", users[n.AuthorID].Username, want.Username)
			}
		}
		if got := storetest.Int(t, s, "SELECT count(*) FROM users WHERE username LIKE '%\\_placeholder\\_%' ESCAPE '\\'"); got != int64(sum.Placeholders) {
			t.Errorf("placeholder users in the store = %d, summary says %d", got, sum.Placeholders)
		}
	})
}

// Ensure what GitLab's own exports leave out is handled their way: notes
// without ids or discussion ids are each a thread of their own, and the
// authors of an archive without members are mapped through
// user_contributions by username.
func TestImport_gitlabShapes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		entries := readEntries(t, x.export(t, x.p))
		entries = edit(entries, "tree/project/project_members.ndjson", func(string) string { return "" })
		entries = edit(entries, "tree/project/issues.ndjson", func(body string) string {
			var out []string
			for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
				var issue map[string]any
				if err := json.Unmarshal([]byte(l), &issue); err != nil {
					t.Fatal(err)
				}
				for _, n := range issue["notes"].([]any) {
					delete(n.(map[string]any), "id")
					delete(n.(map[string]any), "discussion_id")
				}
				b, _ := json.Marshal(issue)
				out = append(out, string(b))
			}
			return strings.Join(out, "\n") + "\n"
		})
		sum, err := x.importFile(t, writeEntries(t, entries), "copies/shapes", zeroLimits, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Placeholders != 0 || sum.MappedUsers == 0 {
			t.Errorf("placeholders %d, mapped %d: want every author mapped through user_contributions", sum.Placeholders, sum.MappedUsers)
		}
		r, _, err := s.Imports.LoadProjectRecords(context.Background(), sum.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		threads := map[string]bool{}
		issueNotes := 0
		for _, n := range r.Notes {
			if n.NoteableType == models.NoteableIssue {
				issueNotes++
				threads[n.DiscussionID] = true
			}
		}
		if issueNotes < 2 || len(threads) != issueNotes {
			t.Errorf("%d issue notes in %d threads, want one thread each", issueNotes, len(threads))
		}
	})
}
