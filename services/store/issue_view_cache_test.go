package store_test

import (
	"context"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
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
		c := store.NewIssueViewCache(0)
		s.UseIssueViewCache(c)
		t.Cleanup(func() { s.UseIssueViewCache(nil) })

		// read reads issue iid as alice (by project path when byPath)
		// and reports whether it was a hit.
		read := func(iid int64, byPath bool) *models.IssueView {
			t.Helper()
			id, path := p.ID, ""
			if byPath {
				id, path = 0, p.PathWithNamespace
			}
			v, ok, err := s.FindIssueView(ctx, id, path, iid, w.Alice.ID)
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
		one, err := s.LoadIssue(ctx, p.ID, 1)
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
		if err := s.TouchTokenLastUsed(ctx, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		if n := c.Stats().Entries; n != 4 {
			t.Errorf("a token's last_used_at cleared the cache (%d views left)", n)
		}
		wantErr(t, "SetUserState", s.SetUserState(ctx, "carol", models.UserActive), nil)
		if n := c.Stats().Entries; n != 0 {
			t.Errorf("a user update left %d views", n)
		}
		cached()
		notes := read(1, false).Notes
		wantErr(t, "CreateNote", s.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue,
			NoteableID: one.ID, ProjectID: p.ID, AuthorID: w.Bob.ID, Body: "new"}), nil)
		if n := c.Stats().Entries; n != 0 {
			t.Errorf("a note created left %d views", n)
		}
		if got := read(1, false).Notes; got != notes+1 {
			t.Errorf("notes after a note was created: %d, want %d", got, notes+1)
		}
		cached()
		wantErr(t, "WithTx", s.WithTx(ctx, func(tx *store.Store) error {
			return tx.SetUserState(ctx, "carol", models.UserActive)
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
		small := store.NewIssueViewCache(3)
		small.SetLive(true)
		s.UseIssueViewCache(small)
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
