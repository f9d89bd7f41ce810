package store_test

import (
	"context"
	"regexp"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func TestStore_CreateNote(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		p := mustCreateProject(t, s, "g", "p")
		other := mustCreateProject(t, s, "g", "other")
		issue := &models.Issue{ProjectID: p.ID, Title: "Bug", AuthorID: alice.ID}
		wantErr(t, "CreateIssue", s.Issues.CreateIssue(ctx, issue), nil)
		issue2 := &models.Issue{ProjectID: p.ID, Title: "Bug 2", AuthorID: alice.ID}
		wantErr(t, "CreateIssue", s.Issues.CreateIssue(ctx, issue2), nil)
		mr := &models.MergeRequest{ProjectID: p.ID, Title: "Fix", SourceBranch: "fix", TargetBranch: "main", AuthorID: alice.ID}
		wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)

		onIssue := func(author *models.User, body string) *models.Note {
			return &models.Note{NoteableType: models.NoteableIssue, NoteableID: issue.ID, ProjectID: p.ID, AuthorID: author.ID, Body: body}
		}

		// A stand-alone comment gets its own 40-hex discussion id.
		first := onIssue(bob, "I can reproduce this.")
		wantErr(t, "CreateNote(comment)", s.Notes.CreateNote(ctx, first), nil)
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(first.DiscussionID) || first.Type != "" {
			t.Errorf("comment: discussion id %q type %q, want 40 hex and no type", first.DiscussionID, first.Type)
		}
		second := onIssue(bob, "Also on Firefox.")
		wantErr(t, "CreateNote(comment 2)", s.Notes.CreateNote(ctx, second), nil)
		if second.DiscussionID == first.DiscussionID {
			t.Errorf("two comments share discussion %s", first.DiscussionID)
		}

		// Replying turns the comment into a discussion thread.
		reply := onIssue(alice, "Thanks, looking.")
		reply.DiscussionID = first.DiscussionID
		wantErr(t, "CreateNote(reply)", s.Notes.CreateNote(ctx, reply), nil)
		var thread []models.Note
		if err := s.DB().Where("discussion_id = ?", first.DiscussionID).Order("id").Find(&thread).Error; err != nil {
			t.Fatal(err)
		}
		if len(thread) != 2 || thread[0].Type != models.NoteTypeDiscussion || thread[1].Type != models.NoteTypeDiscussion {
			t.Errorf("thread = %+v, want 2 notes of type DiscussionNote", thread)
		}

		internal := onIssue(alice, "Customer is Globex.")
		internal.Internal = true
		wantErr(t, "CreateNote(internal on issue)", s.Notes.CreateNote(ctx, internal), nil)
		onMR := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID, ProjectID: p.ID, AuthorID: bob.ID, Body: "LGTM"}
		wantErr(t, "CreateNote(on MR)", s.Notes.CreateNote(ctx, onMR), nil)

		before := countRows(t, s, "notes")
		crossThread := &models.Note{NoteableType: models.NoteableIssue, NoteableID: issue2.ID, ProjectID: p.ID,
			AuthorID: bob.ID, Body: "wrong thread", DiscussionID: first.DiscussionID}
		diffOnIssue := &models.Note{NoteableType: models.NoteableIssue, NoteableID: issue.ID, ProjectID: p.ID,
			AuthorID: bob.ID, Body: "line", Type: models.NoteTypeDiff, Position: &models.DiffPosition{NewPath: "a"}}
		diffNoPosition := &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: mr.ID, ProjectID: p.ID,
			AuthorID: bob.ID, Body: "line", Type: models.NoteTypeDiff}
		tests := []struct {
			name string
			note *models.Note
			want error
		}{
			{"issue of another project", &models.Note{NoteableType: models.NoteableIssue, NoteableID: issue.ID, ProjectID: other.ID, AuthorID: bob.ID, Body: "x"}, models.ErrNotFound},
			{"unknown issue", &models.Note{NoteableType: models.NoteableIssue, NoteableID: 999, ProjectID: p.ID, AuthorID: bob.ID, Body: "x"}, models.ErrNotFound},
			{"issue id as merge request", &models.Note{NoteableType: models.NoteableMergeRequest, NoteableID: issue2.ID, ProjectID: p.ID, AuthorID: bob.ID, Body: "x"}, models.ErrNotFound},
			{"unknown noteable type", &models.Note{NoteableType: "Epic", NoteableID: issue.ID, ProjectID: p.ID, AuthorID: bob.ID, Body: "x"}, models.ErrInvalidInput},
			{"empty body", onIssue(bob, "  "), models.ErrInvalidInput},
			{"reply in another issue's thread", crossThread, models.ErrInvalidInput},
			{"diff note on an issue", diffOnIssue, models.ErrInvalidInput},
			{"diff note without position", diffNoPosition, models.ErrInvalidInput},
			{"unknown author", &models.Note{NoteableType: models.NoteableIssue, NoteableID: issue.ID, ProjectID: p.ID, AuthorID: 999, Body: "x"}, models.ErrInvalidInput},
		}
		for _, tt := range tests {
			wantErr(t, "CreateNote("+tt.name+")", s.Notes.CreateNote(ctx, tt.note), tt.want)
		}
		if after := countRows(t, s, "notes"); after != before {
			t.Errorf("notes = %d after refused creates, want %d", after, before)
		}
	})
}
