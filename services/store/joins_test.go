package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The joined loads (a project with the caller's role in one statement; an
// issue or merge request, then its author and linked users in one more)
// must return exactly what the straightforward queries return: these tests
// compare them, as JSON, with gorm's Preload and the membership lookup.

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

// joinWorld is the demo world plus an issue whose author is also one of
// its assignees, a merge request with one user both assignee and reviewer
// (linked users written out of id order in both), and a merge request with
// no linked users.
func joinWorld(t *testing.T, s *store.Store) *demo.World {
	t.Helper()
	ctx := context.Background()
	w, err := demo.Seed(ctx, s)
	if err != nil {
		t.Fatalf("seed demo: %v", err)
	}
	p := w.Projects["gitlab-org/gitlab-mcp"]
	issue := &models.Issue{ProjectID: p.ID, Title: "Linked", AuthorID: w.Carol.ID,
		Assignees: []models.User{{ID: w.Carol.ID}, {ID: w.Alice.ID}, {ID: w.Bob.ID}}}
	wantErr(t, "CreateIssue", s.Issues.CreateIssue(ctx, issue), nil)
	mr := &models.MergeRequest{ProjectID: p.ID, Title: "Linked", SourceBranch: "linked", TargetBranch: "main",
		AuthorID: w.Bob.ID, Assignees: []models.User{{ID: w.Carol.ID}, {ID: w.Alice.ID}},
		Reviewers: []models.User{{ID: w.Root.ID}, {ID: w.Carol.ID}}}
	wantErr(t, "CreateMergeRequest", s.MergeRequests.CreateMergeRequest(ctx, mr), nil)
	bare := &models.MergeRequest{ProjectID: p.ID, Title: "Bare", SourceBranch: "bare", TargetBranch: "main", AuthorID: w.Alice.ID}
	wantErr(t, "CreateMergeRequest(bare)", s.MergeRequests.CreateMergeRequest(ctx, bare), nil)
	return w
}

type projectIID struct {
	ProjectID int64
	IID       int64 `gorm:"column:iid"`
}

func allIIDs(t *testing.T, s *store.Store, table string) []projectIID {
	t.Helper()
	var out []projectIID
	if err := s.DB().Table(table).Select("project_id, iid").Order("id").Scan(&out).Error; err != nil {
		t.Fatalf("list %s: %v", table, err)
	}
	if len(out) < 3 {
		t.Fatalf("%s: only %d rows, the comparison would prove little", table, len(out))
	}
	return out
}

func TestStore_LoadIssueMatchesPreload(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		joinWorld(t, s)
		ctx := context.Background()
		multi := 0
		for _, k := range allIIDs(t, s, "issues") {
			got, err := s.Issues.LoadIssue(ctx, k.ProjectID, k.IID)
			wantErr(t, "LoadIssue", err, nil)
			var want models.Issue
			err = s.DB().Preload("Author").Preload("Assignees", func(db *gorm.DB) *gorm.DB { return db.Order("id") }).
				Where("project_id = ? AND iid = ?", k.ProjectID, k.IID).Take(&want).Error
			wantErr(t, "preload issue", err, nil)
			if g, w := jsonOf(t, got), jsonOf(t, &want); g != w {
				t.Errorf("issue #%d of project %d:\n got %s\nwant %s", k.IID, k.ProjectID, g, w)
			}
			if got.Author == nil || got.Author.ID != got.AuthorID || got.Assignees == nil {
				t.Errorf("issue #%d: author %+v, assignees %v", k.IID, got.Author, got.Assignees)
			}
			if len(got.Assignees) > 1 {
				multi++
			}
		}
		if multi == 0 {
			t.Error("no issue with several assignees was compared")
		}
		_, err := s.Issues.LoadIssue(ctx, 1, 9999)
		wantErr(t, "LoadIssue(missing)", err, models.ErrNotFound)
	})
}

// notedIssue adds notes, written by Alice, to issue #1 of
// gitlab-org/gitlab-mcp in w, and returns the project and the issue.
func notedIssue(t *testing.T, s *store.Store, w *demo.World, notes ...models.Note) (*models.Project, *models.Issue) {
	t.Helper()
	ctx := context.Background()
	p := w.Projects["gitlab-org/gitlab-mcp"]
	issue, err := s.Issues.LoadIssue(ctx, p.ID, 1)
	wantErr(t, "LoadIssue", err, nil)
	for _, n := range notes {
		n.NoteableType, n.NoteableID, n.ProjectID, n.AuthorID = models.NoteableIssue, issue.ID, p.ID, w.Alice.ID
		wantErr(t, "CreateNote", s.Notes.CreateNote(ctx, &n), nil)
	}
	return p, issue
}

// Ensure LoadIssueCountingNotes is LoadIssue and CountUserNotes in one:
// the same issue, and the same count with and without internal notes.
func TestStore_LoadIssueCountingNotes(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		ctx := context.Background()
		// Notes of every kind on issue #1: two plain, one internal, one system.
		_, issue := notedIssue(t, s, w,
			models.Note{Body: "a"}, models.Note{Body: "b"}, models.Note{Body: "secret", Internal: true}, models.Note{Body: "changed the title", System: true})
		counted := 0
		for _, k := range allIIDs(t, s, "issues") {
			want, err := s.Issues.LoadIssue(ctx, k.ProjectID, k.IID)
			wantErr(t, "LoadIssue", err, nil)
			for _, internal := range []bool{false, true} {
				got, n, err := s.Issues.LoadIssueCountingNotes(ctx, k.ProjectID, k.IID, internal)
				wantErr(t, "LoadIssueCountingNotes", err, nil)
				if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
					t.Errorf("issue #%d of project %d:\n got %s\nwant %s", k.IID, k.ProjectID, g, w)
				}
				wantN, err := s.Issues.CountUserNotes(ctx, models.NoteableIssue, want.ID, internal)
				wantErr(t, "CountUserNotes", err, nil)
				if n != wantN {
					t.Errorf("issue #%d of project %d, internal %v: %d notes, want %d", k.IID, k.ProjectID, internal, n, wantN)
				}
				if n > 0 {
					counted++
				}
			}
		}
		if n, _ := s.Issues.CountUserNotes(ctx, models.NoteableIssue, issue.ID, true); n < 3 || counted == 0 {
			t.Errorf("the comparison counted too little (%d notes on #1, %d counts > 0)", n, counted)
		}
		_, _, err := s.Issues.LoadIssueCountingNotes(ctx, 1, 9999, false)
		wantErr(t, "LoadIssueCountingNotes(missing)", err, models.ErrNotFound)
	})
}

func TestStore_LoadMergeRequestMatchesPreload(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		joinWorld(t, s)
		ctx := context.Background()
		both := 0
		for _, k := range allIIDs(t, s, "merge_requests") {
			got, err := s.MergeRequests.LoadMergeRequest(ctx, k.ProjectID, k.IID)
			wantErr(t, "LoadMergeRequest", err, nil)
			var want models.MergeRequest
			byID := func(db *gorm.DB) *gorm.DB { return db.Order("id") }
			err = s.DB().Preload("Author").Preload("Assignees", byID).Preload("Reviewers", byID).
				Where("project_id = ? AND iid = ?", k.ProjectID, k.IID).Take(&want).Error
			wantErr(t, "preload merge request", err, nil)
			if g, w := jsonOf(t, got), jsonOf(t, &want); g != w {
				t.Errorf("merge request !%d of project %d:\n got %s\nwant %s", k.IID, k.ProjectID, g, w)
			}
			if got.Assignees == nil || got.Reviewers == nil {
				t.Errorf("merge request !%d: nil assignees %v or reviewers %v", k.IID, got.Assignees, got.Reviewers)
			}
			if len(got.Assignees) > 1 && len(got.Reviewers) > 1 {
				both++
			}
		}
		if both == 0 {
			t.Error("no merge request with several assignees and reviewers was compared")
		}
		_, err := s.MergeRequests.LoadMergeRequest(ctx, 1, 9999)
		wantErr(t, "LoadMergeRequest(missing)", err, models.ErrNotFound)
	})
}

func TestStore_FindProjectWithRole(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		ctx := context.Background()
		stranger := mustCreateUser(t, s, "stranger")
		users := append(w.Users(), stranger)
		members := 0
		for path, p := range w.Projects {
			want, err := s.Projects.FindProjectByID(ctx, p.ID)
			wantErr(t, "FindProjectByID", err, nil)
			for _, u := range users {
				// The role is the effective one (direct or inherited from a
				// group, see TestStore_inheritedMembership).
				wantLevel, err := s.Groups.ProjectAccessLevel(ctx, p.ID, u.ID)
				if err != nil {
					t.Fatalf("ProjectAccessLevel: %v", err)
				}
				if _, err := s.Groups.FindProjectMember(ctx, p.ID, u.ID); err == nil {
					members++
				} else if !errors.Is(err, models.ErrNotFound) {
					t.Fatalf("FindProjectMember: %v", err)
				}
				byID, level, err := s.Projects.FindProjectWithRoleByID(ctx, p.ID, u.ID)
				wantErr(t, "FindProjectWithRoleByID", err, nil)
				if jsonOf(t, byID) != jsonOf(t, want) || level != wantLevel {
					t.Errorf("FindProjectWithRoleByID(%s, %s) = %+v, %d; want %+v, %d", path, u.Username, byID, level, want, wantLevel)
				}
				byPath, level, err := s.Projects.FindProjectWithRoleByPath(ctx, strings.ToUpper(path), u.ID)
				wantErr(t, "FindProjectWithRoleByPath", err, nil)
				if jsonOf(t, byPath) != jsonOf(t, want) || level != wantLevel {
					t.Errorf("FindProjectWithRoleByPath(%s, %s) = %+v, %d; want %+v, %d", path, u.Username, byPath, level, want, wantLevel)
				}
			}
		}
		if members == 0 {
			t.Error("no membership was compared")
		}
		_, _, err := s.Projects.FindProjectWithRoleByID(ctx, 99999, w.Alice.ID)
		wantErr(t, "FindProjectWithRoleByID(missing)", err, models.ErrNotFound)
		_, _, err = s.Projects.FindProjectWithRoleByPath(ctx, "gitlab-org/nope", w.Alice.ID)
		wantErr(t, "FindProjectWithRoleByPath(missing)", err, models.ErrNotFound)
	})
}

func TestStore_mergeRequestSummaryReads(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		joinWorld(t, s)
		ctx := context.Background()
		for _, k := range allIIDs(t, s, "merge_requests") {
			mr, err := s.MergeRequests.LoadMergeRequest(ctx, k.ProjectID, k.IID)
			wantErr(t, "LoadMergeRequest", err, nil)
			all, _, err := s.MergeRequests.MergeRequestPipelines(ctx, mr, []string{mr.SHA}, 100)
			wantErr(t, "MergeRequestPipelines", err, nil)
			latest, err := s.MergeRequests.LatestMergeRequestPipelines(ctx, mr, []string{mr.SHA}, 100)
			wantErr(t, "LatestMergeRequestPipelines", err, nil)
			if jsonOf(t, latest) != jsonOf(t, all) {
				t.Errorf("!%d: LatestMergeRequestPipelines = %s, MergeRequestPipelines %s", k.IID, jsonOf(t, latest), jsonOf(t, all))
			}
		}
	})
}

// The statement counts the tools rely on (services/tools pins them per
// tool call).
func TestStore_singleStatementLoads(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		stmts := storetest.CountStatements(t, s)
		ctx := stmts.Context(context.Background())
		p := w.Projects["gitlab-org/gitlab-mcp"]
		count := func(what string, want int, fn func() error) {
			t.Helper()
			stmts.Reset()
			wantErr(t, what, fn(), nil)
			if got := stmts.SQL(); len(got) != want {
				t.Errorf("%s ran %d statements, want %d:\n%s", what, len(got), want, strings.Join(got, "\n"))
			}
		}
		count("FindProjectWithRoleByPath", 1, func() error {
			_, _, err := s.Projects.FindProjectWithRoleByPath(ctx, p.PathWithNamespace, w.Alice.ID)
			return err
		})
		count("FindProjectWithRoleByID", 1, func() error {
			_, _, err := s.Projects.FindProjectWithRoleByID(ctx, p.ID, w.Alice.ID)
			return err
		})
		iids := allIIDs(t, s, "issues")
		last := iids[len(iids)-1]
		count("LoadIssue", 2, func() error { _, err := s.Issues.LoadIssue(ctx, last.ProjectID, last.IID); return err })
		mrs := allIIDs(t, s, "merge_requests")
		lastMR := mrs[len(mrs)-2] // the one with assignees and reviewers
		count("LoadMergeRequest", 2, func() error {
			_, err := s.MergeRequests.LoadMergeRequest(ctx, lastMR.ProjectID, lastMR.IID)
			return err
		})
	})
}

// Ensure FindIssueView reads what the statement-by-statement loads read:
// every issue of the demo world (and the join world's), by id and by
// path, for every demo user, and reports no view when the project, the
// issue or the author is missing.
func TestStore_FindIssueViewMatchesSeparateLoads(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		ctx := context.Background()
		p, first := notedIssue(t, s, w, models.Note{Body: "a"}, models.Note{Body: "secret", Internal: true}, models.Note{Body: "moved", System: true})
		users := w.Users()
		compared := 0
		for _, k := range allIIDs(t, s, "issues") {
			wantIssue, err := s.Issues.LoadIssue(ctx, k.ProjectID, k.IID)
			wantErr(t, "LoadIssue", err, nil)
			all, err := s.Issues.CountUserNotes(ctx, models.NoteableIssue, wantIssue.ID, true)
			wantErr(t, "CountUserNotes", err, nil)
			public, err := s.Issues.CountUserNotes(ctx, models.NoteableIssue, wantIssue.ID, false)
			wantErr(t, "CountUserNotes", err, nil)
			for _, u := range users {
				wantProject, level, err := s.Projects.FindProjectWithRoleByID(ctx, k.ProjectID, u.ID)
				wantErr(t, "FindProjectWithRoleByID", err, nil)
				for _, byPath := range []bool{false, true} {
					id, path := k.ProjectID, ""
					if byPath {
						id, path = 0, strings.ToUpper(wantProject.PathWithNamespace)
					}
					v, ok, err := s.Issues.FindIssueView(ctx, id, path, k.IID, u.ID)
					wantErr(t, "FindIssueView", err, nil)
					if !ok {
						t.Fatalf("no view of issue #%d of project %d (by path %v)", k.IID, k.ProjectID, byPath)
					}
					if g, w := jsonOf(t, v.Project), jsonOf(t, wantProject); g != w {
						t.Errorf("project:\n got %s\nwant %s", g, w)
					}
					if g, w := jsonOf(t, v.Issue), jsonOf(t, wantIssue); g != w {
						t.Errorf("issue #%d of project %d:\n got %s\nwant %s", k.IID, k.ProjectID, g, w)
					}
					if v.Level != level || v.Notes != all || v.PublicNotes != public {
						t.Errorf("issue #%d of project %d as %s: level %d, notes %d/%d; want %d, %d/%d",
							k.IID, k.ProjectID, u.Username, v.Level, v.Notes, v.PublicNotes, level, all, public)
					}
					compared++
				}
			}
		}
		if compared < 20 || first.Author == nil {
			t.Fatalf("compared %d views", compared)
		}
		// In a transaction the view reads on the transaction: an issue
		// created in it is seen before it commits.
		wantErr(t, "WithTx", s.WithTx(ctx, func(tx *store.Store) error {
			created := &models.Issue{ProjectID: p.ID, Title: "In a transaction", AuthorID: w.Bob.ID}
			if err := tx.Issues.CreateIssue(ctx, created); err != nil {
				return err
			}
			v, ok, err := tx.Issues.FindIssueView(ctx, p.ID, "", created.IID, w.Bob.ID)
			if err != nil || !ok || v.Issue.Title != "In a transaction" || v.Issue.Author == nil || v.Issue.Author.ID != w.Bob.ID {
				t.Errorf("view in the transaction: %+v, %v, %v", v, ok, err)
			}
			return nil
		}), nil)
		for _, c := range []struct {
			name string
			id   int64
			path string
			iid  int64
		}{
			{"missing issue", p.ID, "", 9999},
			{"missing project", 999999, "", 1},
			{"missing path", 0, "nobody/nothing", 1},
		} {
			if v, ok, err := s.Issues.FindIssueView(ctx, c.id, c.path, c.iid, w.Alice.ID); ok || err != nil || v != nil {
				t.Errorf("%s: view %v, ok %v, error %v; want none", c.name, v, ok, err)
			}
		}
	})
}

// TestStore_ProjectAccessLevels: the roles of several users in one
// statement are ProjectAccessLevel's, one by one; a user without a role is
// missing from the map; no users, an empty map.
func TestStore_ProjectAccessLevels(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		w := joinWorld(t, s)
		ctx := context.Background()
		stranger := mustCreateUser(t, s, "stranger")
		users := append(w.Users(), stranger)
		ids := make([]int64, len(users))
		for k, u := range users {
			ids[k] = u.ID
		}
		members := 0
		for path, p := range w.Projects {
			got, err := s.Groups.ProjectAccessLevels(ctx, p.ID, ids)
			wantErr(t, "ProjectAccessLevels", err, nil)
			for _, u := range users {
				want, err := s.Groups.ProjectAccessLevel(ctx, p.ID, u.ID)
				wantErr(t, "ProjectAccessLevel", err, nil)
				level, ok := got[u.ID]
				if level != want || ok != (want != models.NoAccess) {
					t.Errorf("%s: %s: ProjectAccessLevels = %d (present %v), ProjectAccessLevel = %d", path, u.Username, level, ok, want)
				}
				if ok {
					members++
				}
			}
		}
		if members == 0 {
			t.Error("no member compared: the test proves nothing")
		}
		if got, err := s.Groups.ProjectAccessLevels(ctx, 1, nil); err != nil || len(got) != 0 {
			t.Errorf("ProjectAccessLevels(no users) = %v, %v", got, err)
		}
	})
}
