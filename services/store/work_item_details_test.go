package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// A work item's related merge requests are its project's merge requests
// whose title or description names #iid exactly, paged by id; the same
// answer on both databases.
func TestStore_RelatedMergeRequests(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "p")
		other := mustCreateProject(t, s, "g", "other")
		for k, c := range []struct {
			project     *models.Project
			title, desc string
		}{
			{p, "Fix it", "Closes #1."},      // 1: yes
			{p, "#1 at the start", ""},       // 2: yes
			{p, "Ends with #1", ""},          // 3: yes
			{p, "Not this", "See #10, #11"},  // 4: no
			{p, "Nor this", "issue 1, ##"},   // 5: no
			{other, "Other project", "#1"},   // 6: no
			{p, "Multi-line", "a\nb #1\nc"},  // 7: yes
			{p, "Another issue", "Fixes #2"}, // 8: no
		} {
			mr := &models.MergeRequest{ProjectID: c.project.ID, Title: c.title, Description: c.desc,
				SourceBranch: fmt.Sprint("b", k), TargetBranch: "main", AuthorID: alice.ID}
			wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)
		}
		var got []string
		var after int64
		for range 10 {
			page, more, err := s.MergeRequests.RelatedMergeRequests(ctx, p.ID, 1, after, 2)
			wantErr(t, "RelatedMergeRequests", err, nil)
			for _, mr := range page {
				if mr.Author == nil || mr.Author.Username != "alice" {
					t.Fatalf("author of !%d not loaded: %+v", mr.IID, mr.Author)
				}
				got = append(got, fmt.Sprint(mr.IID))
				after = mr.ID
			}
			if !more {
				break
			}
		}
		if strings.Join(got, " ") != "1 2 3 6" { // iids in project p: the 7th MR overall is p's 6th
			t.Errorf("related to #1: %v", got)
		}
		n, err := s.Notes.CountNotes(ctx, models.NoteableIssue, 12345, true)
		if err != nil || n != 0 {
			t.Errorf("CountNotes of nothing = %d, %v", n, err)
		}
	})
}
