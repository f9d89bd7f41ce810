package store_test

import (
	"context"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// PageDiscussions' filter: comments only by default (merge request
// discussions), all notes, or system notes only (work item discussions).
func TestStore_DiscussionsFilter(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "p")
		i := &models.Issue{ProjectID: p.ID, Title: "Crash", AuthorID: alice.ID}
		wantErr(t, "CreateIssue", s.Issues.CreateIssue(ctx, i), nil)
		note := func(body string, system bool) *models.Note {
			n := &models.Note{NoteableType: models.NoteableIssue, NoteableID: i.ID, ProjectID: p.ID, AuthorID: alice.ID,
				Body: body, System: system}
			wantErr(t, "CreateNote("+body+")", s.Notes.CreateNote(ctx, n), nil)
			return n
		}
		note("comment", false)
		sys := note("changed the description", true)
		note("another comment", false)
		bodies := func(f models.NotesFilter, after int64) []string {
			t.Helper()
			ds, _, err := s.MergeRequests.PageDiscussions(ctx, models.DiscussionPageQuery{NoteableType: models.NoteableIssue, NoteableID: i.ID,
				Limit: 10, Filter: f, AfterNoteID: after})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, d := range ds {
				for _, n := range d.Notes {
					out = append(out, n.Body)
				}
			}
			return out
		}
		for _, c := range []struct {
			f     models.NotesFilter
			after int64
			want  string
		}{
			{models.OnlyComments, 0, "comment|another comment"},
			{models.AllNotes, 0, "comment|changed the description|another comment"},
			{models.OnlyActivity, 0, "changed the description"},
			{models.AllNotes, sys.ID, "another comment"},
			{models.OnlyActivity, sys.ID, ""},
		} {
			if got := strings.Join(bodies(c.f, c.after), "|"); got != c.want {
				t.Errorf("filter %d after %d: %q, want %q", c.f, c.after, got, c.want)
			}
		}
	})
}
