package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// list_work_items' assignee filter: every named user must be an assignee
// (the name in any case), an unknown name matches nothing, and the page
// is newest first, on both stores.
func TestListWorkItems_assigneeUsernames(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		admin := mustCreateUser(t, s, "admin")
		admin.Admin = true
		ann := mustCreateUser(t, s, "Ann")
		bob := mustCreateUser(t, s, "bob")
		p := mustCreateProject(t, s, "assignees", "filter")
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		r := &store.ProjectRecords{}
		for k := range 30 {
			var people []models.User
			if k%2 == 0 {
				people = append(people, *ann)
			}
			if k%3 == 0 {
				people = append(people, *bob)
			}
			c := at.Add(time.Duration(k) * time.Minute)
			r.Issues = append(r.Issues, store.RecordIssue{Issue: models.Issue{IID: int64(k + 1), Title: fmt.Sprintf("issue %d", k+1),
				State: models.IssueOpened, AuthorID: admin.ID, Assignees: people, Labels: models.StringList{"bug"}, CreatedAt: c, UpdatedAt: c}})
		}
		if err := s.WithTx(ctx, func(tx *store.Store) error { return tx.Imports.InsertProjectRecords(ctx, p.ID, r) }); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			names []string
			want  func(k int) bool // 0-based issue index
		}{
			{[]string{"ANN"}, func(k int) bool { return k%2 == 0 }},
			{[]string{"ann", "Bob"}, func(k int) bool { return k%6 == 0 }},
			{[]string{"nobody"}, func(int) bool { return false }},
		} {
			var want []int64
			for k := 29; k >= 0 && len(want) < 10; k-- {
				if c.want(k) {
					want = append(want, int64(k+1))
				}
			}
			page, err := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: admin, ProjectID: p.ID,
				AssigneeUsernames: c.names, LabelNames: []string{"bug"}, Limit: 10})
			if err != nil {
				t.Fatalf("%v: %v", c.names, err)
			}
			var got []int64
			for _, i := range page.Items {
				got = append(got, i.IID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("assignees %v: iids %v, want %v", c.names, got, want)
			}
		}
	})
}
