package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The issue view cache's own rules, without a LISTEN connection (the
// notification round trip is in spec/issue_view_cache_test.go): what is
// stored and answered, what each payload drops, and that this Store's own
// writes clear it as soon as they commit.
func TestIssueViewCache(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		ctx := context.Background()
		p := w.Projects["gitlab-org/gitlab-mcp"]
		c := store.NewIssueViewCache(0, 0)
		s.Issues.UseIssueViewCache(c)
		t.Cleanup(func() { s.Issues.UseIssueViewCache(nil) })

		// read reads issue iid as alice (by project path when byPath)
		// and reports whether it was a hit.
		read := func(iid int64, byPath bool) *models.IssueView {
			t.Helper()
			id, path := p.ID, ""
			if byPath {
				id, path = 0, p.PathWithNamespace
			}
			v, ok, err := s.Issues.FindIssueView(ctx, id, path, iid, w.Alice.ID)
			if err != nil || !ok {
				t.Fatalf("FindIssueView(#%d) = %v, %v", iid, ok, err)
			}
			return v
		}
		hit := func(iid int64, byPath bool) bool {
			t.Helper()
			before := c.Stats().Hits
			read(iid, byPath)
			return c.Stats().Hits == before+1
		}
		// cached reads #1 and #2 (by id and by path) until all four are
		// in the cache.
		cached := func() {
			t.Helper()
			for _, iid := range []int64{1, 2} {
				for _, byPath := range []bool{false, true} {
					read(iid, byPath)
					if !hit(iid, byPath) {
						t.Fatalf("#%d (by path %v) not cached: %+v", iid, byPath, c.Stats())
					}
				}
			}
		}

		if hit(1, false) || c.Stats().Misses != 0 || c.Stats().Entries != 0 {
			t.Fatalf("not live yet, yet used: %+v", c.Stats())
		}
		c.SetLive(true)
		cached()
		one, err := s.Issues.LoadIssue(ctx, p.ID, 1)
		wantErr(t, "LoadIssue", err, nil)

		// Payloads drop what they name, and only that.
		c.Invalidate("i:" + itoa(one.ID))
		if hit(1, false) || hit(1, true) || !hit(2, false) {
			t.Errorf("i:<id of #1> dropped the wrong views: %+v", c.Stats())
		}
		for _, payload := range []string{"p:" + itoa(p.ID), "u:" + itoa(w.Alice.ID), "*", "x:1", "garbage"} {
			cached()
			c.Invalidate(payload)
			if n := c.Stats().Entries; n != 0 {
				t.Errorf("%s left %d views", payload, n)
			}
		}
		cached()
		c.Invalidate("u:" + itoa(one.AuthorID))
		if hit(1, false) || hit(1, true) {
			t.Errorf("u:<author of #1> left #1: %+v", c.Stats())
		}
		cached()
		c.Invalidate("p:" + itoa(p.ID+1000))
		c.Invalidate("u:" + itoa(w.Carol.ID))
		if n := c.Stats().Entries; n != 4 {
			t.Errorf("unrelated payloads left %d views, want 4", n)
		}

		// This Store's writes: a statement on a view's table clears at
		// once, a transaction when it ends, other tables leave it.
		if err := s.Users.TouchTokenLastUsed(ctx, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		if n := c.Stats().Entries; n != 4 {
			t.Errorf("a token's last_used_at cleared the cache (%d views left)", n)
		}
		wantErr(t, "SetUserState", s.Users.SetUserState(ctx, "carol", models.UserActive), nil)
		if n := c.Stats().Entries; n != 0 {
			t.Errorf("a user update left %d views", n)
		}
		cached()
		notes := read(1, false).Notes
		wantErr(t, "CreateNote", s.Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue,
			NoteableID: one.ID, ProjectID: p.ID, AuthorID: w.Bob.ID, Body: "new"}), nil)
		if n := c.Stats().Entries; n != 0 {
			t.Errorf("a note created left %d views", n)
		}
		if got := read(1, false).Notes; got != notes+1 {
			t.Errorf("notes after a note was created: %d, want %d", got, notes+1)
		}
		cached()
		wantErr(t, "WithTx", s.WithTx(ctx, func(tx *store.Store) error {
			return tx.Users.SetUserState(ctx, "carol", models.UserActive)
		}), nil)
		if n := c.Stats().Entries; n != 0 {
			t.Errorf("a transaction left %d views", n)
		}

		// Lost notifications: everything goes, nothing is stored while
		// not live.
		cached()
		c.SetLive(false)
		if n := c.Stats().Entries; n != 0 || hit(1, false) {
			t.Errorf("not live: %+v", c.Stats())
		}

		// Bounded.
		small := store.NewIssueViewCache(3, 0)
		small.SetLive(true)
		s.Issues.UseIssueViewCache(small)
		c = small
		for i := 0; i < 3; i++ {
			for _, iid := range []int64{1, 2} {
				for _, byPath := range []bool{false, true} {
					read(iid, byPath)
				}
			}
		}
		if n := small.Stats().Entries; n != 3 {
			t.Errorf("a cache of 3 holds %d views", n)
		}
	})
}

// Ensure the embedded store's versioned cache answers from memory until a
// writer of the file — this Store, or another handle on it (the CLI,
// another process, the sqlite3 shell) — changes a row the view is read
// from, and then reads the change at once: only the changed project's
// views go, unless the change may touch every project.
func TestIssueViewCache_sqliteMarks(t *testing.T) {
	ctx := context.Background()
	path := storetest.SQLitePath(t)
	repos, err := repository.OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Background housekeeping stops before the directory goes.
	t.Cleanup(func() { repos.Close() })
	t.Cleanup(func() { repos.Close() })
	s, err := store.Open(ctx, path, store.Options{Repositories: repos})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	wantErr(t, "Migrate", s.Migrate(ctx), nil)
	w := joinWorld(t, s)
	other, err := store.Open(ctx, path, store.Options{}) // another writer of the file
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	db, err := other.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	c := store.NewVersionedIssueViewCache(0, 0)
	s.Issues.UseIssueViewCache(c)

	// acme/secret-plans#1: alice (maintainer, a direct member) wrote it,
	// is assigned and commented; gitlab-org/orbit#1 another project's.
	secret, orbit := w.Projects[demo.ProjectSecret], w.Projects[demo.ProjectOrbit]
	if secret == nil || orbit == nil {
		t.Fatalf("demo projects: %v", w.Projects)
	}
	// read reads p's issue iid as alice, as a request does when marks
	// is set (the identity version's statement, which also reads the
	// sequence, first), and reports whether it was a hit.
	readAs := func(p *models.Project, iid int64, marks bool) (*models.IssueView, bool) {
		t.Helper()
		rctx := ctx
		if marks {
			rctx = store.WithRequestMarks(ctx)
			if _, err := s.Users.IdentityVersion(rctx); err != nil {
				t.Fatal(err)
			}
		}
		before := c.Stats()
		v, ok, err := s.Issues.FindIssueView(rctx, p.ID, "", iid, w.Alice.ID)
		if err != nil || !ok {
			t.Fatalf("FindIssueView(%s#%d) = %v, %v", p.PathWithNamespace, iid, ok, err)
		}
		after := c.Stats()
		return v, after.Hits == before.Hits+1 && after.Misses == before.Misses
	}
	read := func(p *models.Project, iid int64) (*models.IssueView, bool) {
		t.Helper()
		return readAs(p, iid, false)
	}
	// cached reads both views until both are hits.
	cached := func() {
		t.Helper()
		for _, p := range []*models.Project{secret, orbit} {
			read(p, 1)
			if _, hit := read(p, 1); !hit {
				t.Fatalf("%s#1 not cached: %+v", p.PathWithNamespace, c.Stats())
			}
		}
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	one, err := s.Issues.LoadIssue(ctx, secret.ID, 1)
	wantErr(t, "LoadIssue", err, nil)

	for i, tc := range []struct {
		what       string
		change     func()
		check      func(v *models.IssueView) bool
		orbitDrops bool // gitlab-org/orbit's view goes too (a change that may touch every project)
	}{
		{"title", func() { exec("UPDATE issues SET title = 'Renamed with SQL' WHERE id = ?", one.ID) },
			func(v *models.IssueView) bool { return v.Issue.Title == "Renamed with SQL" }, false},
		{"a note made a system note", func() {
			exec("UPDATE notes SET system = 1 WHERE noteable_type = 'Issue' AND noteable_id = ?", one.ID)
		}, func(v *models.IssueView) bool { return v.Notes == 0 }, false},
		{"an assignee added", func() { exec("INSERT INTO issue_assignees (issue_id, user_id) VALUES (?, ?)", one.ID, w.Carol.ID) },
			func(v *models.IssueView) bool { return len(v.Issue.Assignees) == 2 }, false},
		{"the project renamed", func() { exec("UPDATE projects SET name = 'Renamed' WHERE id = ?", secret.ID) },
			func(v *models.IssueView) bool { return v.Project.Name == "Renamed" }, false},
		{"a note through this store", func() {
			wantErr(t, "CreateNote", s.Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue,
				NoteableID: one.ID, ProjectID: secret.ID, AuthorID: w.Bob.ID, Body: "new"}), nil)
		}, func(v *models.IssueView) bool { return v.Notes == 1 }, false},
		{"the author's name", func() { exec("UPDATE users SET name = 'Renamed Author' WHERE id = ?", one.AuthorID) },
			func(v *models.IssueView) bool { return v.Issue.Author.Name == "Renamed Author" }, true},
		{"a group membership", func() {
			exec("INSERT INTO namespace_members (namespace_id, user_id, access_level) SELECT id, ?, 10 FROM namespaces WHERE full_path = 'gitlab-org'", w.Carol.ID)
		}, func(*models.IssueView) bool { return true }, true},
		{"alice's direct membership removed", func() {
			exec("DELETE FROM project_members WHERE project_id = ? AND user_id = ?", secret.ID, w.Alice.ID)
		}, nil, false},
	} {
		cached()
		before, hit := readAs(secret, 1, true)
		if !hit {
			t.Fatalf("%s: not a hit with the request's marks before the change", tc.what)
		}
		tc.change()
		v, hit := readAs(secret, 1, i%2 == 0)
		if hit {
			t.Errorf("%s: the view was answered from memory", tc.what)
		}
		if tc.check != nil && !tc.check(v) {
			t.Errorf("%s: read %+v", tc.what, v.Issue)
		}
		if tc.check == nil && v.Level == before.Level {
			t.Errorf("%s: role still %d", tc.what, v.Level)
		}
		if _, hit := read(orbit, 1); hit == tc.orbitDrops {
			t.Errorf("%s: gitlab-org/orbit#1 a hit = %t, want %t", tc.what, hit, !tc.orbitDrops)
		}
	}

	// What changes no view marks nothing; a rolled-back change neither.
	cached()
	exec("UPDATE notes SET body = 'edited' WHERE noteable_type = 'Issue' AND noteable_id = ?", one.ID)
	wantErr(t, "TouchTokenLastUsed", s.Users.TouchTokenLastUsed(ctx, 1, time.Now()), nil)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE issues SET title = 'Rolled back' WHERE id = ?", one.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Rollback", tx.Rollback(), nil)
	for _, marks := range []bool{false, true} {
		if v, hit := readAs(secret, 1, marks); !hit || v.Issue.Title == "Rolled back" {
			t.Errorf("after a body edit, last_used_at and a rollback (request marks %t): hit %t, title %q", marks, hit, v.Issue.Title)
		}
	}
}

// Ensure the cache holds about its byte budget at most: large views push
// others out, a view larger than the whole budget is not kept, and the
// count bound still holds.
func TestIssueViewCache_byteBudget(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		ctx := context.Background()
		p := w.Projects["gitlab-org/gitlab-mcp"]
		const budget = 1 << 20
		c := store.NewIssueViewCache(0, budget)
		c.SetLive(true)
		s.Issues.UseIssueViewCache(c)
		t.Cleanup(func() { s.Issues.UseIssueViewCache(nil) })

		issue := func(size int) int64 {
			t.Helper()
			i := &models.Issue{ProjectID: p.ID, Title: "Large", AuthorID: w.Alice.ID,
				Description: strings.Repeat("x", size)}
			wantErr(t, "CreateIssue", s.Issues.CreateIssue(ctx, i), nil)
			return i.IID
		}
		read := func(iid int64) bool {
			t.Helper()
			before := c.Stats().Hits
			if _, ok, err := s.Issues.FindIssueView(ctx, p.ID, "", iid, w.Alice.ID); err != nil || !ok {
				t.Fatalf("FindIssueView(#%d) = %v, %v", iid, ok, err)
			}
			return c.Stats().Hits == before+1
		}

		// Small views: many fit, each counted.
		read(1)
		read(2)
		small := c.Stats()
		if small.Entries != 2 || small.Bytes <= 0 || small.Bytes > 2*16<<10 {
			t.Fatalf("two small views: %+v", small)
		}
		// 200 KB descriptions: held three times (the view, the rendered
		// answer's text and structured copy), so at most one fits beside
		// the small ones.
		large := []int64{issue(200_000), issue(200_000), issue(200_000)}
		for _, iid := range large {
			read(iid)
			if st := c.Stats(); st.Bytes > budget {
				t.Fatalf("over budget after #%d: %+v", iid, st)
			}
		}
		st := c.Stats()
		if st.Entries >= 5 || st.Bytes < 600_000 || st.Drops == 0 {
			t.Errorf("three large views in a budget of one: %+v", st)
		}
		if !read(large[2]) {
			t.Errorf("the last large view was not kept: %+v", c.Stats())
		}
		// Larger than the budget: answered, never kept.
		huge := issue(400_000)
		before := c.Stats()
		read(huge)
		if read(huge) {
			t.Errorf("a view over the whole budget was kept: %+v", c.Stats())
		}
		if after := c.Stats(); after.Entries > before.Entries || after.Bytes != before.Bytes {
			t.Errorf("a view over the budget changed the cache: %+v → %+v", before, after)
		}
		// Everything dropped: nothing counted.
		c.Clear()
		if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 {
			t.Errorf("cleared: %+v", st)
		}
	})
}
