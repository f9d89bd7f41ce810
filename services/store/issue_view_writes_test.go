package store_test

import (
	"context"
	"slices"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/store"
)

var (
	// viewTables are the tables an issue view is read from: those the
	// triggers of migration 20261201180000 (PostgreSQL: NOTIFY) and
	// 20261201200000 (SQLite: marks) watch. The store's write methods of
	// these tables invalidate what they changed in the cache
	// (TestIssueViewCache_writes).
	viewTables = []string{"issues", "issue_assignees", "notes", "projects",
		"project_members", "namespace_members", "namespaces", "users"}
	// viewCascadeTables are the tables the triggers do not watch whose
	// writes change a watched table through a foreign key action:
	// deleting a milestone sets issues.milestone_id to NULL (the store
	// has no method deleting a milestone).
	viewCascadeTables = []string{"milestones"}
)

// Ensure the tables the write methods are checked against are the tables
// the issue view triggers are on (viewTables), and that every other table
// whose writes change them through a foreign key action is in
// viewCascadeTables.
func TestIssueViewCache_tables(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var triggered, cascades []string
		var err error
		if s.Dialect() == "postgres" {
			err = s.DB().WithContext(ctx).Raw(`SELECT DISTINCT c.relname FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc f ON f.oid = t.tgfoid
WHERE f.proname = 'glmcp_view_changed' ORDER BY 1`).Scan(&triggered).Error
			wantErr(t, "triggers", err, nil)
			// Foreign keys with an action (CASCADE, SET NULL, SET
			// DEFAULT) from a view's table to another table.
			err = s.DB().WithContext(ctx).Raw(`SELECT DISTINCT p.relname FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
WHERE k.contype = 'f' AND (k.confdeltype IN ('c', 'n', 'd') OR k.confupdtype IN ('c', 'n', 'd'))
AND c.relname IN ? AND p.relname NOT IN ? ORDER BY 1`,
				viewTables, viewTables).Scan(&cascades).Error
			wantErr(t, "foreign keys", err, nil)
		} else {
			err = s.DB().WithContext(ctx).Raw(`SELECT DISTINCT tbl_name FROM sqlite_master
WHERE type = 'trigger' AND sql LIKE '%issue_view_versions%' ORDER BY 1`).Scan(&triggered).Error
			wantErr(t, "triggers", err, nil)
			for _, table := range viewTables {
				var parents []string
				err = s.DB().WithContext(ctx).Raw(`SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)
WHERE on_delete IN ('CASCADE', 'SET NULL', 'SET DEFAULT') OR on_update IN ('CASCADE', 'SET NULL', 'SET DEFAULT')`, table).Scan(&parents).Error
				wantErr(t, "foreign keys", err, nil)
				for _, parent := range parents {
					if !slices.Contains(viewTables, parent) && !slices.Contains(cascades, parent) {
						cascades = append(cascades, parent)
					}
				}
			}
			slices.Sort(cascades)
		}
		want := slices.Sorted(slices.Values(viewTables))
		if !slices.Equal(triggered, want) {
			t.Errorf("tables with issue view triggers: %v, viewTables: %v", triggered, want)
		}
		if !slices.Equal(cascades, viewCascadeTables) {
			t.Errorf("tables whose writes change a view's table by a foreign key: %v, viewCascadeTables: %v", cascades, viewCascadeTables)
		}
	})
}

// Ensure every write method of the store that changes what a cached issue
// view is read from (viewTables) makes the next FindIssueView read fresh:
// at once outside a transaction, once a transaction ends inside one.
func TestIssueViewCache_writes(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w, p, c, one, read := viewCacheWorld(t, s)
		ctx := context.Background()
		// A group per run, alice not in it yet (AddGroupMember).
		var groups [2]*models.Group
		for k := range groups {
			groups[k] = &models.Group{Name: "Views " + itoa(int64(k)), Path: "views-" + itoa(int64(k)), Visibility: models.VisibilityPrivate}
			wantErr(t, "CreateGroup", s.Groups.CreateGroup(ctx, groups[k]), nil)
		}
		for _, tc := range []struct {
			what string
			fn   func(st *store.Store, run int) error
			// fresh checks the view read after the write (nil: a miss is
			// all that can be seen).
			fresh func(v *models.IssueView, run int) bool
		}{
			{"Issues.UpdateWorkItem", func(st *store.Store, run int) error {
				title := "Retitled " + itoa(int64(run))
				_, err := st.Issues.UpdateWorkItem(ctx, one.ID, models.WorkItemUpdate{Title: &title})
				return err
			}, func(v *models.IssueView, run int) bool { return v.Issue.Title == "Retitled "+itoa(int64(run)) }},
			{"Issues.CreateIssue", func(st *store.Store, run int) error {
				return st.Issues.CreateIssue(ctx, &models.Issue{ProjectID: p.ID, Title: "Another", AuthorID: w.Bob.ID})
			}, nil},
			{"Notes.CreateNote", func(st *store.Store, run int) error {
				return st.Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue,
					NoteableID: one.ID, ProjectID: p.ID, AuthorID: w.Bob.ID, Body: "a note"})
			}, nil},
			{"Projects.SetProjectDefaultBranch", func(st *store.Store, run int) error {
				return st.Projects.SetProjectDefaultBranch(ctx, p.ID, "main")
			}, nil},
			{"Projects.SetProjectMergeMethod", func(st *store.Store, run int) error {
				return st.Projects.SetProjectMergeMethod(ctx, p.ID, "merge")
			}, nil},
			{"Groups.AddProjectMember", func(st *store.Store, run int) error {
				u := &models.User{Username: "viewer" + itoa(int64(run)), Name: "Viewer", Email: "viewer" + itoa(int64(run)) + "@example.com"}
				if err := st.Users.CreateUser(ctx, u); err != nil {
					return err
				}
				return st.Groups.AddProjectMember(ctx, &models.ProjectMember{ProjectID: p.ID, UserID: u.ID, AccessLevel: models.Reporter})
			}, nil},
			{"Groups.AddGroupMember", func(st *store.Store, run int) error {
				return st.Groups.AddGroupMember(ctx, &models.GroupMember{NamespaceID: groups[run].ID, UserID: w.Alice.ID, AccessLevel: models.Reporter})
			}, nil},
			{"Groups.CreateGroup", func(st *store.Store, run int) error {
				return st.Groups.CreateGroup(ctx, &models.Group{Name: "New " + itoa(int64(run)), Path: "new-" + itoa(int64(run)), Visibility: models.VisibilityPrivate})
			}, nil},
			{"Users.SetUserState", func(st *store.Store, run int) error {
				return st.Users.SetUserState(ctx, "carol", models.UserActive)
			}, nil},
			{"Users.SetUserRateLimit", func(st *store.Store, run int) error {
				return st.Users.SetUserRateLimit(ctx, "carol", 0, 0)
			}, nil},
		} {
			for run, inTx := range []bool{false, true} {
				read()
				if _, hit := read(); !hit {
					t.Fatalf("#1 not cached: %+v", c.Stats())
				}
				if inTx {
					wantErr(t, tc.what, s.WithTx(ctx, func(tx *store.Store) error { return tc.fn(tx, run) }), nil)
				} else {
					wantErr(t, tc.what, tc.fn(s, run), nil)
				}
				v, hit := read()
				if hit || (tc.fresh != nil && !tc.fresh(v, run)) {
					t.Errorf("after %s (in a transaction: %t): hit %t, view %+v", tc.what, inTx, hit, v.Issue)
				}
			}
		}
	})
}

// Ensure a transaction clears the issue view cache only when it may have
// changed what a view shows: one that only reads, or writes tables no
// view is read from (a pipeline, a setting), leaves the cached views
// answered from memory; one that writes a view's table — by a model
// statement, a raw Exec, in a savepoint, or with a statement whose table
// cannot be told — clears it once it ends, and the next read is the
// transaction's write.
func TestIssueViewCache_transactions(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w, p, c, one, read := viewCacheWorld(t, s)
		ctx := context.Background()
		cached := func() {
			t.Helper()
			read()
			if _, hit := read(); !hit {
				t.Fatalf("#1 not cached: %+v", c.Stats())
			}
		}

		for _, tc := range []struct {
			what string
			fn   func(tx *store.Store) error
		}{
			{"a read-only transaction", func(tx *store.Store) error {
				_, err := tx.Issues.LoadIssue(ctx, p.ID, 1)
				if err == nil {
					_, _, err = tx.Issues.FindIssueView(ctx, p.ID, "", 1, w.Alice.ID)
				}
				return err
			}},
			{"a pipeline created", func(tx *store.Store) error {
				return tx.CI.CreatePipeline(ctx, &models.Pipeline{ProjectID: p.ID, SHA: "0123456789abcdef0123456789abcdef01234567", Ref: "main",
					Jobs: []models.CIJob{{ProjectID: p.ID, Name: "test", Stage: "test"}}})
			}},
			{"a raw Exec on another table, a SELECT FOR UPDATE on one", func(tx *store.Store) error {
				if err := tx.DB().WithContext(ctx).Exec("SELECT id FROM issues WHERE id = ?", one.ID).Error; err != nil {
					return err
				}
				return tx.DB().WithContext(ctx).Exec(`INSERT INTO glmcp_settings (key, value) VALUES ('view-cache-test', 'x')
ON CONFLICT (key) DO UPDATE SET value = excluded.value`).Error
			}},
			{"a rolled-back savepoint of a read", func(tx *store.Store) error {
				err := tx.WithTx(ctx, func(sp *store.Store) error {
					if _, err := sp.Issues.LoadIssue(ctx, p.ID, 1); err != nil {
						return err
					}
					return models.ErrConflict
				})
				if err != models.ErrConflict {
					return err
				}
				return nil
			}},
		} {
			cached()
			wantErr(t, tc.what, s.WithTx(ctx, tc.fn), nil)
			if _, hit := read(); !hit {
				t.Errorf("%s cleared the cache: %+v", tc.what, c.Stats())
			}
		}
		// A pipeline created outside a transaction of the caller (its
		// own) neither.
		cached()
		wantErr(t, "CreatePipeline", s.CI.CreatePipeline(ctx, &models.Pipeline{ProjectID: p.ID,
			SHA: "0123456789abcdef0123456789abcdef01234567", Ref: "main"}), nil)
		if _, hit := read(); !hit {
			t.Errorf("a pipeline cleared the cache: %+v", c.Stats())
		}

		// Writes to a view's table: read at once after the transaction.
		title := func(text string) func(tx *store.Store) error {
			return func(tx *store.Store) error {
				_, err := tx.Issues.UpdateWorkItem(ctx, one.ID, models.WorkItemUpdate{Title: &text})
				return err
			}
		}
		for _, tc := range []struct {
			what  string
			fn    func(tx *store.Store) error
			title string
		}{
			{"an issue update", title("Updated in a transaction"), "Updated in a transaction"},
			{"an issue update in a savepoint", func(tx *store.Store) error {
				return tx.WithTx(ctx, title("Updated in a savepoint"))
			}, "Updated in a savepoint"},
		} {
			cached()
			wantErr(t, tc.what, s.WithTx(ctx, tc.fn), nil)
			if v, hit := read(); hit || v.Issue.Title != tc.title {
				t.Errorf("after %s: hit %t, title %q, want %q", tc.what, hit, v.Issue.Title, tc.title)
			}
		}
		cached()
		notes := func() int64 { v, _ := read(); return v.Notes }()
		wantErr(t, "WithTx", s.WithTx(ctx, func(tx *store.Store) error {
			return tx.Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue,
				NoteableID: one.ID, ProjectID: p.ID, AuthorID: w.Bob.ID, Body: "in a transaction"})
		}), nil)
		if v, hit := read(); hit || v.Notes != notes+1 {
			t.Errorf("after a note in a transaction: hit %t, notes %d, want %d", hit, v.Notes, notes+1)
		}

		// SQL on DB() is not read: its notification reports what it
		// changed (the payload drops it), whether it wrote a view's table
		// or not.
		cached()
		wantErr(t, "Exec", s.DB().WithContext(ctx).Exec("UPDATE glmcp_settings SET value = 'y' WHERE key = 'view-cache-test'").Error, nil)
		if _, hit := read(); !hit {
			t.Errorf("a setting cleared the cache: %+v", c.Stats())
		}
		wantErr(t, "Exec", s.DB().WithContext(ctx).Exec("UPDATE issues SET title = 'Raw outside' WHERE id = ?", one.ID).Error, nil)
		if _, hit := read(); !hit {
			t.Errorf("raw SQL cleared the cache: %+v", c.Stats())
		}
		c.Invalidate("i:" + itoa(one.ID))
		if v, hit := read(); hit || v.Issue.Title != "Raw outside" {
			t.Errorf("after the raw UPDATE's payload: hit %t, title %q", hit, v.Issue.Title)
		}
	})
}

// viewCacheWorld seeds the demo world into s, gives s.Issues a live issue
// view cache and returns the world, gitlab-org/gitlab-mcp, the cache, its
// issue #1 and read, which reads #1 as alice and reports whether the cache
// answered it.
func viewCacheWorld(t *testing.T, s *store.Store) (*demo.World, *models.Project, *store.IssueViewCache, *models.Issue, func() (*models.IssueView, bool)) {
	t.Helper()
	w := joinWorld(t, s)
	ctx := context.Background()
	p := w.Projects["gitlab-org/gitlab-mcp"]
	c := store.NewIssueViewCache(0, 0)
	c.SetLive(true)
	s.Issues.UseIssueViewCache(c)
	t.Cleanup(func() { s.Issues.UseIssueViewCache(nil) })
	one, err := s.Issues.LoadIssue(ctx, p.ID, 1)
	wantErr(t, "LoadIssue", err, nil)
	read := func() (*models.IssueView, bool) {
		t.Helper()
		before := c.Stats()
		v, ok, err := s.Issues.FindIssueView(ctx, p.ID, "", 1, w.Alice.ID)
		if err != nil || !ok {
			t.Fatalf("FindIssueView(#1) = %v, %v", ok, err)
		}
		after := c.Stats()
		return v, after.Hits == before.Hits+1 && after.Misses == before.Misses
	}
	return w, p, c, one, read
}
