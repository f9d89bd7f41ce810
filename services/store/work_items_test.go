package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

func ptr[T any](v T) *T { return &v }

func mustDate(t *testing.T, s string) *models.Date {
	t.Helper()
	d, err := models.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

// tableDigest reads every row of a table as text, in id order, so two reads
// compare equal exactly when nothing changed.
func tableDigest(t *testing.T, s *store.Store, tables ...string) string {
	t.Helper()
	out := ""
	for _, table := range tables {
		var rows []map[string]any
		if err := s.DB().Table(table).Find(&rows).Error; err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		out += fmt.Sprintf("%s:%v\n", table, rows)
	}
	return out
}

var workItemTables = []string{"issues", "issue_assignees", "work_item_parent_links", "issue_links", "milestones", "internal_ids"}

func TestStore_workItemHierarchy(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "one")
		other := mustCreateProject(t, s, "g", "two")
		issue := &models.Issue{ProjectID: p.ID, Title: "Parent", AuthorID: alice.ID, Milestone: "18.7"}
		wantErr(t, "create issue", s.Issues.CreateIssue(ctx, issue), nil)
		if issue.MilestoneID == nil || issue.WorkItemTypeID != models.TypeIssue {
			t.Fatalf("issue: milestone id %v type %d, want a milestone and Issue", issue.MilestoneID, issue.WorkItemTypeID)
		}
		task := &models.Issue{ProjectID: p.ID, Title: "Task", AuthorID: alice.ID, WorkItemTypeID: models.TypeTask,
			StartDate: mustDate(t, "2026-12-01"), DueDate: mustDate(t, "2026-12-24")}
		wantErr(t, "create task under issue", s.Issues.CreateWorkItem(ctx, task, &issue.ID), nil)
		if got, err := s.Issues.WorkItemParent(ctx, task.ID); err != nil || got == nil || got.ID != issue.ID {
			t.Fatalf("WorkItemParent(task) = %v, %v; want the issue", got, err)
		}
		if has, _ := s.Issues.WorkItemHasChildren(ctx, issue.ID); !has {
			t.Error("issue has no children")
		}
		back, _ := s.Issues.FindIssueByID(ctx, task.ID)
		if back.DueDate == nil || back.DueDate.String() != "2026-12-24" || back.StartDate.String() != "2026-12-01" {
			t.Errorf("task dates read back %v..%v", back.StartDate, back.DueDate)
		}
		far := &models.Issue{ProjectID: other.ID, Title: "Far", AuthorID: alice.ID}
		wantErr(t, "create far", s.Issues.CreateIssue(ctx, far), nil)

		before := tableDigest(t, s, workItemTables...)
		refused := []struct {
			name string
			run  func() error
		}{
			{"issue under task", func() error {
				_, err := s.Issues.UpdateWorkItem(ctx, issue.ID, models.WorkItemUpdate{SetParent: true, ParentID: &task.ID})
				return err
			}},
			{"task under itself", func() error {
				_, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{SetParent: true, ParentID: &task.ID})
				return err
			}},
			{"parent in another project", func() error {
				_, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{SetParent: true, ParentID: &far.ID})
				return err
			}},
			{"task under a task, at create", func() error {
				return s.Issues.CreateWorkItem(ctx, &models.Issue{ProjectID: p.ID, Title: "x", AuthorID: alice.ID, WorkItemTypeID: models.TypeTask}, &task.ID)
			}},
			{"start after due", func() error {
				_, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{SetStartDate: true, StartDate: mustDate(t, "2027-01-01")})
				return err
			}},
			{"empty title with other changes", func() error {
				_, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{Title: ptr(" "), Description: ptr("changed")})
				return err
			}},
			{"label not in project", func() error {
				_, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{AddLabels: []string{"nope"}})
				return err
			}},
			{"milestone of another project", func() error {
				m := &models.Milestone{ProjectID: other.ID, Title: "elsewhere"}
				if err := s.Issues.CreateMilestone(ctx, m); err != nil {
					return err
				}
				defer s.DB().Exec("DELETE FROM milestones WHERE id = ?", m.ID)
				defer s.DB().Exec("DELETE FROM internal_ids WHERE project_id = ? AND usage = 'milestones'", other.ID)
				_, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{SetMilestone: true, MilestoneID: &m.ID})
				return err
			}},
		}
		for _, r := range refused {
			if err := r.run(); !errors.Is(err, models.ErrInvalidInput) {
				t.Errorf("%s: err = %v, want ErrInvalidInput", r.name, err)
			}
			if after := tableDigest(t, s, workItemTables...); after != before {
				t.Fatalf("%s changed the store:\nbefore %s\nafter  %s", r.name, before, after)
			}
		}
		if _, err := s.Issues.UpdateWorkItem(ctx, 999999, models.WorkItemUpdate{Title: ptr("x")}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("update missing: %v, want ErrNotFound", err)
		}

		// A full update in one call.
		for _, n := range []string{"bug", "feature"} {
			wantErr(t, "label", s.Issues.CreateLabel(ctx, &models.Label{ProjectID: p.ID, Name: n}), nil)
		}
		got, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{
			Title: ptr("Renamed"), State: ptr(models.IssueClosed), AddLabels: []string{"bug", "feature"},
			RemoveLabels: []string{"feature"}, AssigneeIDs: &[]int64{alice.ID}, SetMilestone: true, MilestoneID: issue.MilestoneID,
			SetDueDate: true, SetParent: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != "Renamed" || got.State != models.IssueClosed || got.ClosedAt == nil || !slices.Equal(got.Labels, models.StringList{"bug"}) ||
			got.Milestone != "18.7" || got.DueDate != nil || len(got.Assignees) != 1 {
			t.Errorf("updated: %+v", got)
		}
		if parent, _ := s.Issues.WorkItemParent(ctx, task.ID); parent != nil {
			t.Errorf("parent after removal = %v", parent)
		}
		reopened, err := s.Issues.UpdateWorkItem(ctx, task.ID, models.WorkItemUpdate{State: ptr(models.IssueOpened)})
		if err != nil || reopened.ClosedAt != nil {
			t.Errorf("reopen: %v closed_at %v", err, reopened.ClosedAt)
		}
	})
}

func TestStore_LinkWorkItems(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "one")
		var ids []int64
		for i := range 4 {
			w := &models.Issue{ProjectID: p.ID, Title: fmt.Sprint("w", i), AuthorID: alice.ID}
			wantErr(t, "create", s.Issues.CreateIssue(ctx, w), nil)
			ids = append(ids, w.ID)
		}
		wantErr(t, "relate", s.Issues.LinkWorkItems(ctx, ids[0], []int64{ids[1], ids[1]}, models.LinkRelatesTo), nil)
		wantErr(t, "blocked by", s.Issues.LinkWorkItems(ctx, ids[0], []int64{ids[2]}, models.LinkBlockedBy), nil)
		var links []models.WorkItemLink
		s.DB().Order("id").Find(&links)
		if len(links) != 2 || links[1].SourceID != ids[2] || links[1].TargetID != ids[0] || links[1].LinkType != models.LinkBlocks {
			t.Fatalf("links = %+v", links)
		}
		before := tableDigest(t, s, "issue_links")
		for name, run := range map[string]func() error{
			"already linked (other way)": func() error {
				return s.Issues.LinkWorkItems(ctx, ids[1], []int64{ids[3], ids[0]}, models.LinkRelatesTo)
			},
			"self": func() error { return s.Issues.LinkWorkItems(ctx, ids[3], []int64{ids[3]}, models.LinkRelatesTo) },
		} {
			if err := run(); !errors.Is(err, models.ErrConflict) {
				t.Errorf("%s: %v, want ErrConflict", name, err)
			}
			if tableDigest(t, s, "issue_links") != before {
				t.Fatalf("%s wrote links", name)
			}
		}
		if err := s.Issues.LinkWorkItems(ctx, ids[3], []int64{ids[1]}, "duplicates"); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("unknown type: %v", err)
		}

		// Two agents linking the same pair at once, from both sides: one wins.
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for k, pair := range [][2]int64{{ids[3], ids[1]}, {ids[1], ids[3]}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = s.Issues.LinkWorkItems(ctx, pair[0], []int64{pair[1]}, models.LinkRelatesTo)
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if !errors.Is(err, models.ErrConflict) {
				t.Errorf("concurrent link: %v", err)
			}
		}
		if ok != 1 || countRows(t, s, "issue_links") != 3 {
			t.Errorf("concurrent links: %d succeeded, %d rows; want 1 and 3", ok, countRows(t, s, "issue_links"))
		}
	})
}

func TestStore_ListWorkItems(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		p := mustCreateProject(t, s, "g", "one")
		wantErr(t, "member", s.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: alice.ID, AccessLevel: models.Developer}), nil)
		wantErr(t, "label", s.Issues.CreateLabel(ctx, &models.Label{ProjectID: p.ID, Name: "a<b"}), nil)
		var all []int64
		for i := range 23 {
			w := &models.Issue{ProjectID: p.ID, Title: fmt.Sprintf("item %02d", i%7), AuthorID: alice.ID}
			if i%3 == 0 {
				w.WorkItemTypeID, w.Labels = models.TypeTask, models.StringList{"a<b"}
			}
			wantErr(t, "create", s.Issues.CreateIssue(ctx, w), nil)
			all = append(all, w.ID)
		}
		for _, sort := range []models.WorkItemSort{models.SortCreatedDesc, models.SortCreatedAsc, models.SortTitleAsc, models.SortUpdatedDesc} {
			q := models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Sort: sort, Limit: 5}
			var seen []int64
			for range 10 {
				page, err := s.Issues.ListWorkItems(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range page.Items {
					seen = append(seen, it.ID)
				}
				if !page.HasNext {
					break
				}
				q.AfterKey, q.AfterID = page.EndKey, page.EndID
			}
			if !slices.Equal(slices.Sorted(slices.Values(seen)), all) {
				t.Errorf("%s: paged through %v, want each of %v once", sort, seen, all)
			}
		}
		page, err := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: alice, ProjectID: p.ID, Types: []models.WorkItemTypeID{models.TypeTask},
			LabelNames: []string{"a<b"}, Limit: 100})
		if err != nil || len(page.Items) != 8 {
			t.Errorf("tasks labelled a<b: %d, %v; want 8", len(page.Items), err)
		}
		if _, err := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: alice, AfterID: 1, AfterKey: "junk", Limit: 5}); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("bad resume key: %v", err)
		}
		outsider := mustCreateUser(t, s, "eve")
		if err := s.DB().Exec("UPDATE projects SET visibility = 'private' WHERE id = ?", p.ID).Error; err != nil {
			t.Fatal(err)
		}
		if page, _ := s.Issues.ListWorkItems(ctx, models.WorkItemQuery{Viewer: outsider, ProjectID: p.ID, Limit: 5}); len(page.Items) != 0 {
			t.Errorf("outsider sees %d work items of a private project", len(page.Items))
		}
	})
}
