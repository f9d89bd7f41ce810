package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func projectIIDs(t *testing.T, s *store.Store, table string, projectID int64) []int64 {
	t.Helper()
	var iids []int64
	if err := s.DB().Table(table).Where("project_id = ?", projectID).Order("iid").Pluck("iid", &iids).Error; err != nil {
		t.Fatalf("read %s iids: %v", table, err)
	}
	return iids
}

func TestStore_CreateIssue(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		bob := mustCreateUser(t, s, "bob")
		p1 := mustCreateProject(t, s, "g", "one")
		p2 := mustCreateProject(t, s, "g", "two")

		first := &models.Issue{ProjectID: p1.ID, Title: "First", AuthorID: alice.ID, IID: 77,
			Labels: models.StringList{"bug"}, Assignees: []models.User{{ID: alice.ID}, {ID: bob.ID}, {ID: alice.ID}}}
		wantErr(t, "CreateIssue(first)", s.Issues.CreateIssue(ctx, first), nil)
		if first.IID != 1 || first.State != models.IssueOpened {
			t.Errorf("first issue: iid %d state %q, want 1 opened (caller's iid replaced)", first.IID, first.State)
		}
		closed := &models.Issue{ProjectID: p1.ID, Title: "Second", AuthorID: alice.ID, State: models.IssueClosed}
		wantErr(t, "CreateIssue(closed)", s.Issues.CreateIssue(ctx, closed), nil)
		if closed.IID != 2 || closed.ClosedAt == nil {
			t.Errorf("closed issue: iid %d closed_at %v, want 2 and set", closed.IID, closed.ClosedAt)
		}
		other := &models.Issue{ProjectID: p2.ID, Title: "Elsewhere", AuthorID: bob.ID}
		wantErr(t, "CreateIssue(other project)", s.Issues.CreateIssue(ctx, other), nil)
		if other.IID != 1 {
			t.Errorf("numbers are per project: iid = %d, want 1", other.IID)
		}

		var back models.Issue
		if err := s.DB().Preload("Assignees").Preload("Author").Take(&back, first.ID).Error; err != nil {
			t.Fatal(err)
		}
		if ids := back.AssigneeIDs(); !slices.Equal(sorted(ids), []int64{alice.ID, bob.ID}) || back.Author.Username != "alice" || !back.Labels.Contains("bug") {
			t.Errorf("stored issue: assignees %v, author %+v, labels %v", ids, back.Author, back.Labels)
		}

		// Refused writes leave nothing behind, not even a consumed number.
		tests := []struct {
			name  string
			issue models.Issue
			want  error
		}{
			{"empty title", models.Issue{ProjectID: p1.ID, Title: " ", AuthorID: alice.ID}, models.ErrInvalidInput},
			{"unknown state", models.Issue{ProjectID: p1.ID, Title: "x", AuthorID: alice.ID, State: "reopened"}, models.ErrInvalidInput},
			{"unknown project", models.Issue{ProjectID: 999, Title: "x", AuthorID: alice.ID}, models.ErrInvalidInput},
			{"unknown author", models.Issue{ProjectID: p1.ID, Title: "x", AuthorID: 999}, models.ErrInvalidInput},
			{"unknown assignee", models.Issue{ProjectID: p1.ID, Title: "x", AuthorID: alice.ID, Assignees: []models.User{{ID: 999}}}, models.ErrInvalidInput},
		}
		for _, tt := range tests {
			i := tt.issue
			wantErr(t, "CreateIssue("+tt.name+")", s.Issues.CreateIssue(ctx, &i), tt.want)
			if i.ID != 0 || i.IID != 0 {
				t.Errorf("CreateIssue(%s) left ID %d IID %d on a refused issue", tt.name, i.ID, i.IID)
			}
		}
		if n := countRows(t, s, "issues"); n != 3 {
			t.Errorf("issues = %d, want 3", n)
		}
		third := &models.Issue{ProjectID: p1.ID, Title: "Third", AuthorID: alice.ID}
		wantErr(t, "CreateIssue(third)", s.Issues.CreateIssue(ctx, third), nil)
		if third.IID != 3 {
			t.Errorf("iid after refused creates = %d, want 3 (no gaps)", third.IID)
		}

		// The database itself refuses a duplicate (project_id, iid).
		dup := models.Issue{ProjectID: p1.ID, IID: 1, Title: "dup", AuthorID: alice.ID, State: models.IssueOpened, Labels: models.StringList{}}
		if err := s.DB().Omit("Assignees", "Author").Create(&dup).Error; err == nil {
			t.Error("direct insert of a duplicate (project_id, iid) succeeded, want a unique violation")
		}
	})
}

func TestStore_CreateIssue_concurrentIIDs(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "busy")

		const writers, each = 8, 3
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := range writers {
			wg.Go(func() {
				for k := range each {
					i := &models.Issue{ProjectID: p.ID, Title: fmt.Sprintf("w%d-%d", w, k), AuthorID: u.ID}
					if err := s.Issues.CreateIssue(ctx, i); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("concurrent CreateIssue: %v", err)
		}
		var want []int64
		for n := int64(1); n <= writers*each; n++ {
			want = append(want, n)
		}
		if got := projectIIDs(t, s, "issues", p.ID); !slices.Equal(got, want) {
			t.Errorf("iids = %v, want %v", got, want)
		}
	})
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
