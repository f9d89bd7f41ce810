package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// reassignTables are the tables a reassignment writes to.
var reassignTables = []string{"users", "project_members", "issues", "issue_assignees", "merge_requests",
	"merge_request_assignees", "merge_request_reviewers", "approvals", "notes", "ci_pipelines", "ci_jobs",
	"releases", "import_source_users"}

// reassignWorld is a project imported with placeholder users ph1 and ph2
// (ph1 authoring, assigned, reviewing, approving, resolving, running
// pipelines and jobs, releasing, a developer), beside real users alice (a
// reporter, also assigned, reviewing and approving) and bob, blocked
// carol, and another project whose placeholder is other.
type reassignWorld struct {
	p, q              *models.Project
	alice, bob, carol *models.User
	ph1, ph2, other   *models.User
}

func newReassignWorld(t *testing.T, s *store.Store) *reassignWorld {
	return newReassignWorldIn(t, s, "")
}

// newReassignWorldIn makes a world whose names end in sfx (several in one
// store).
func newReassignWorldIn(t *testing.T, s *store.Store, sfx string) *reassignWorld {
	t.Helper()
	ctx := context.Background()
	w := &reassignWorld{p: mustCreateProject(t, s, "imports"+sfx, "copy"), q: mustCreateProject(t, s, "imports"+sfx, "other"),
		alice: mustCreateUser(t, s, "alice"+sfx), bob: mustCreateUser(t, s, "bob"+sfx), carol: mustCreateUser(t, s, "carol"+sfx)}
	if err := s.Users.SetUserState(ctx, "carol"+sfx, models.UserBlocked); err != nil {
		t.Fatal(err)
	}
	placeholder := func(name string) *models.User {
		u := &models.User{Username: name + sfx + "_placeholder_1", Name: "Placeholder " + name,
			Email: name + sfx + "_placeholder_1@placeholder.glmcp.invalid", State: models.UserBlocked}
		if err := s.Users.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	w.ph1, w.ph2, w.other = placeholder("ann"), placeholder("ben"), placeholder("cid")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	users := func(us ...*models.User) []models.User {
		var out []models.User
		for _, u := range us {
			out = append(out, models.User{ID: u.ID})
		}
		return out
	}
	src := func(u *models.User, id, name string) models.ImportSourceUser {
		return models.ImportSourceUser{PlaceholderUserID: &u.ID, SourceUserIdentifier: id, SourceUsername: name, SourceName: name}
	}
	ph1 := w.ph1.ID
	recs := &store.ProjectRecords{
		Members: []models.ProjectMember{{UserID: w.ph1.ID, AccessLevel: 30, CreatedAt: at, UpdatedAt: at},
			{UserID: w.alice.ID, AccessLevel: 20, CreatedAt: at, UpdatedAt: at}},
		Issues: []store.RecordIssue{
			{Issue: models.Issue{IID: 1, Title: "one", State: models.IssueOpened, AuthorID: w.ph1.ID, Assignees: users(w.ph1, w.alice), CreatedAt: at, UpdatedAt: at}},
			{Issue: models.Issue{IID: 2, Title: "two", State: models.IssueOpened, AuthorID: w.alice.ID, Assignees: users(w.ph1, w.ph2), CreatedAt: at, UpdatedAt: at}},
			{Issue: models.Issue{IID: 3, Title: "three", State: models.IssueOpened, AuthorID: w.ph2.ID, CreatedAt: at, UpdatedAt: at}},
		},
		MergeRequests: []store.RecordMergeRequest{{MergeRequest: models.MergeRequest{IID: 1, Title: "mr", State: models.MergeRequestMerged,
			SourceBranch: "f", TargetBranch: "main", AuthorID: w.ph1.ID, MergeUserID: &ph1, MergedAt: &at,
			Assignees: users(w.ph1), Reviewers: users(w.ph1, w.alice), CreatedAt: at, UpdatedAt: at}}},
		Notes: []store.RecordNote{
			{Note: models.Note{NoteableType: models.NoteableIssue, AuthorID: w.ph1.ID, Body: "hi", DiscussionID: "d1", CreatedAt: at, UpdatedAt: at}, NoteableIID: 1},
			{Note: models.Note{NoteableType: models.NoteableMergeRequest, AuthorID: w.ph1.ID, Body: "ok", Type: models.NoteTypeDiscussion,
				DiscussionID: "d2", ResolvedAt: &at, ResolvedByID: &ph1, CreatedAt: at, UpdatedAt: at}, NoteableIID: 1},
		},
		Approvals: []store.RecordApproval{{MergeRequestIID: 1, UserID: w.ph1.ID, CreatedAt: at}, {MergeRequestIID: 1, UserID: w.alice.ID, CreatedAt: at}},
		Pipelines: []store.RecordPipeline{{Pipeline: models.Pipeline{IID: 1, SHA: "0123456789012345678901234567890123456789", Ref: "main",
			Status: "success", Source: "push", UserID: &ph1, CreatedAt: at, UpdatedAt: at,
			Jobs: []models.CIJob{{Name: "test", Stage: "test", Status: "success", Ref: "main", UserID: &ph1, CreatedAt: at}}}}},
		Releases:    []models.Release{{Tag: "v1", Name: "v1", AuthorID: &ph1, ReleasedAt: at, CreatedAt: at, UpdatedAt: at}},
		SourceUsers: []models.ImportSourceUser{src(w.ph1, "11", "ann"), src(w.ph2, "12", "ben")},
	}
	if err := s.Imports.InsertProjectRecords(ctx, w.p.ID, recs); err != nil {
		t.Fatal(err)
	}
	other := &store.ProjectRecords{
		Issues:      []store.RecordIssue{{Issue: models.Issue{IID: 1, Title: "theirs", State: models.IssueOpened, AuthorID: w.other.ID, CreatedAt: at, UpdatedAt: at}}},
		SourceUsers: []models.ImportSourceUser{src(w.other, "11", "cid")},
	}
	if err := s.Imports.InsertProjectRecords(ctx, w.q.ID, other); err != nil {
		t.Fatal(err)
	}
	return w
}

// naming counts the rows of project p that name user id.
func naming(t *testing.T, s *store.Store, p, id int64) int64 {
	t.Helper()
	return storetest.Int(t, s, `SELECT
 (SELECT count(*) FROM issues WHERE project_id = ? AND author_id = ?) +
 (SELECT count(*) FROM issue_assignees a JOIN issues i ON i.id = a.issue_id WHERE i.project_id = ? AND a.user_id = ?) +
 (SELECT count(*) FROM merge_requests WHERE project_id = ? AND (author_id = ? OR merge_user_id = ?)) +
 (SELECT count(*) FROM merge_request_assignees a JOIN merge_requests m ON m.id = a.merge_request_id WHERE m.project_id = ? AND a.user_id = ?) +
 (SELECT count(*) FROM merge_request_reviewers a JOIN merge_requests m ON m.id = a.merge_request_id WHERE m.project_id = ? AND a.user_id = ?) +
 (SELECT count(*) FROM approvals a JOIN merge_requests m ON m.id = a.merge_request_id WHERE m.project_id = ? AND a.user_id = ?) +
 (SELECT count(*) FROM notes WHERE project_id = ? AND (author_id = ? OR resolved_by_id = ?)) +
 (SELECT count(*) FROM ci_pipelines WHERE project_id = ? AND user_id = ?) +
 (SELECT count(*) FROM ci_jobs WHERE project_id = ? AND user_id = ?) +
 (SELECT count(*) FROM releases WHERE project_id = ? AND author_id = ?) +
 (SELECT count(*) FROM project_members WHERE project_id = ? AND user_id = ?)`,
		p, id, p, id, p, id, id, p, id, p, id, p, id, p, id, id, p, id, p, id, p, id, p, id)
}

// Ensure a reassignment moves every row of the project that names the
// placeholder to the real user in one go (one assignment, review and
// approval per user; the higher role), marks its source user completed,
// and removes the placeholder user, whom nothing names any more.
func TestReassignPlaceholder(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newReassignWorld(t, s)
		r, err := s.Imports.ReassignPlaceholder(ctx, w.p.ID, "ANN_placeholder_1", "alice")
		if err != nil {
			t.Fatal(err)
		}
		if !r.PlaceholderRemoved || r.Target.ID != w.alice.ID || r.Placeholder.ID != w.ph1.ID {
			t.Errorf("result = %+v, want ann's placeholder removed and alice the target", r)
		}
		var moved int64
		for _, n := range r.Moved {
			moved += n
		}
		// Two assignments, two notes, one of each other reference.
		if moved != 15 || len(r.Moved) != 13 {
			t.Errorf("moved %d references in %d columns (%v), want the 15 in 13 that named the placeholder", moved, len(r.Moved), r.Moved)
		}
		if n := naming(t, s, w.p.ID, w.ph1.ID); n != 0 {
			t.Errorf("%d rows still name the placeholder", n)
		}
		if n := storetest.Int(t, s, "SELECT count(*) FROM users WHERE id = ?", w.ph1.ID); n != 0 {
			t.Errorf("placeholder user still there")
		}
		// One link per user: alice was assigned, reviewing and approving
		// already.
		for _, q := range []string{
			"SELECT count(*) FROM issue_assignees a JOIN issues i ON i.id = a.issue_id WHERE i.project_id = ? AND i.iid = 1",
			"SELECT count(*) FROM merge_request_reviewers a JOIN merge_requests m ON m.id = a.merge_request_id WHERE m.project_id = ?",
			"SELECT count(*) FROM approvals a JOIN merge_requests m ON m.id = a.merge_request_id WHERE m.project_id = ?",
			"SELECT count(*) FROM project_members WHERE project_id = ?",
		} {
			if n := storetest.Int(t, s, q, w.p.ID); n != 1 {
				t.Errorf("%s = %d, want 1 (alice once)", q, n)
			}
		}
		if lvl := storetest.Int(t, s, "SELECT access_level FROM project_members WHERE project_id = ? AND user_id = ?", w.p.ID, w.alice.ID); lvl != 30 {
			t.Errorf("alice's role = %d, want the placeholder's developer (30), the higher", lvl)
		}
		if n := storetest.Int(t, s, "SELECT count(*) FROM import_source_users WHERE project_id = ? AND source_user_identifier = '11' AND status = 'completed' AND reassign_to_user_id = ? AND placeholder_user_id IS NULL", w.p.ID, w.alice.ID); n != 1 {
			t.Errorf("ann's source user is not completed, reassigned to alice")
		}
		// ben's placeholder and the other project are untouched.
		if n := naming(t, s, w.p.ID, w.ph2.ID); n != 2 {
			t.Errorf("ben's placeholder named %d times, want 2", n)
		}
		if n := naming(t, s, w.q.ID, w.other.ID); n != 1 {
			t.Errorf("the other project's placeholder named %d times, want 1", n)
		}
		// Done once: the placeholder is gone.
		_, err = s.Imports.ReassignPlaceholder(ctx, w.p.ID, "ann_placeholder_1", "alice")
		wantErr(t, "reassign again", err, models.ErrNotFound)
	})
}

// Ensure a placeholder still named elsewhere stays (its rows of this
// project moved), and the source user is completed all the same.
func TestReassignPlaceholder_keptWhileNamed(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newReassignWorld(t, s)
		if err := s.DB().Exec("UPDATE issues SET author_id = ? WHERE project_id = ?", w.ph1.ID, w.q.ID).Error; err != nil {
			t.Fatal(err)
		}
		r, err := s.Imports.ReassignPlaceholder(ctx, w.p.ID, "ann_placeholder_1", "bob")
		if err != nil {
			t.Fatal(err)
		}
		if r.PlaceholderRemoved {
			t.Errorf("placeholder removed while the other project's issue names it")
		}
		if n := naming(t, s, w.p.ID, w.ph1.ID); n != 0 {
			t.Errorf("%d rows of the project still name the placeholder", n)
		}
		if n := storetest.Int(t, s, "SELECT count(*) FROM users WHERE id = ?", w.ph1.ID); n != 1 {
			t.Errorf("placeholder user removed")
		}
		_, err = s.Imports.ReassignPlaceholder(ctx, w.p.ID, "ann_placeholder_1", "alice")
		wantErr(t, "reassign a completed one again", err, models.ErrConflict)
	})
}

// Ensure the role a source user had in the project (kept on its source
// user, its placeholder being no member) goes to the user it is
// reassigned to: a new membership, or a higher role, never a lower one.
func TestReassignPlaceholder_role(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newReassignWorld(t, s)
		if err := s.DB().Exec("UPDATE import_source_users SET access_level = 40 WHERE placeholder_user_id = ?", w.ph2.ID).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Exec("UPDATE import_source_users SET access_level = 10 WHERE placeholder_user_id = ?", w.other.ID).Error; err != nil {
			t.Fatal(err)
		}
		role := func(p, u int64) int64 {
			return storetest.Int(t, s, "SELECT access_level FROM project_members WHERE project_id = ? AND user_id = ?", p, u)
		}
		// alice is a reporter: ben was a maintainer.
		r, err := s.Imports.ReassignPlaceholder(ctx, w.p.ID, w.ph2.Username, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if got := role(w.p.ID, w.alice.ID); got != 40 || r.Moved["project_members.user_id"] != 1 {
			t.Errorf("alice's role = %d (moved %v), want maintainer (40)", got, r.Moved)
		}
		// bob is no member of the other project: cid was a guest.
		if _, err := s.Imports.ReassignPlaceholder(ctx, w.q.ID, w.other.Username, "bob"); err != nil {
			t.Fatal(err)
		}
		if got := role(w.q.ID, w.bob.ID); got != 10 {
			t.Errorf("bob's role in the other project = %d, want guest (10)", got)
		}
		// A lower role never lowers one: ann was a developer, alice is a
		// maintainer now.
		if err := s.DB().Exec("UPDATE import_source_users SET access_level = 30 WHERE placeholder_user_id = ?", w.ph1.ID).Error; err != nil {
			t.Fatal(err)
		}
		if _, err := s.Imports.ReassignPlaceholder(ctx, w.p.ID, w.ph1.Username, "alice"); err != nil {
			t.Fatal(err)
		}
		if got := role(w.p.ID, w.alice.ID); got != 40 {
			t.Errorf("alice's role = %d, want maintainer (40) still", got)
		}
	})
}

// Ensure every refusal says why and changes nothing.
func TestReassignPlaceholder_refusals(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newReassignWorld(t, s)
		before := storetest.State(t, s, reassignTables...)
		for _, c := range []struct {
			name, from, to string
			project        int64
			want           error
		}{
			{"unknown target", "ann_placeholder_1", "nobody", w.p.ID, models.ErrNotFound},
			{"unknown placeholder", "nobody", "alice", w.p.ID, models.ErrNotFound},
			{"blocked target", "ann_placeholder_1", "carol", w.p.ID, models.ErrInvalidInput},
			{"placeholder target", "ann_placeholder_1", "ben_placeholder_1", w.p.ID, models.ErrInvalidInput},
			{"a real user is no placeholder", "alice", "bob", w.p.ID, models.ErrInvalidInput},
			{"another project's placeholder", "cid_placeholder_1", "alice", w.p.ID, models.ErrInvalidInput},
			{"the placeholder itself", "ann_placeholder_1", "Ann_Placeholder_1", w.p.ID, models.ErrInvalidInput},
		} {
			_, err := s.Imports.ReassignPlaceholder(ctx, c.project, c.from, c.to)
			if !errors.Is(err, c.want) {
				t.Errorf("%s: error = %v, want %v", c.name, err, c.want)
			}
		}
		if after := storetest.State(t, s, reassignTables...); !mapsEqual(before, after) {
			t.Errorf("a refused reassignment changed the store:\n%v\n%v", before, after)
		}
	})
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// race runs the reassignments at once (project, placeholder, target) and
// returns their errors.
func race(s *store.Store, runs ...[3]any) []error {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, len(runs))
	for k, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[k] = s.Imports.ReassignPlaceholder(context.Background(), r[0].(int64), r[1].(string), r[2].(string))
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// Ensure reassignments at once leave a consistent store: one placeholder
// to two users, exactly one wins and every row names the winner; two
// placeholders assigned to one issue to the same user, both succeed and
// the user is assigned once; placeholders of two projects to one user,
// both succeed.
func TestReassignPlaceholder_concurrent(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		for round := range 3 {
			sfx := "r" + string(rune('0'+round))
			w := newReassignWorldIn(t, s, sfx)
			errs := race(s, [3]any{w.p.ID, w.ph1.Username, w.alice.Username}, [3]any{w.p.ID, w.ph1.Username, w.bob.Username})
			ok := slices.IndexFunc(errs, func(err error) bool { return err == nil })
			if ok < 0 || errs[1-ok] == nil || !errors.Is(errs[1-ok], models.ErrNotFound) && !errors.Is(errs[1-ok], models.ErrConflict) {
				t.Fatalf("round %d: errors %v, want one success and one refusal", round, errs)
			}
			winner := []*models.User{w.alice, w.bob}[ok]
			if n := naming(t, s, w.p.ID, w.ph1.ID); n != 0 {
				t.Errorf("round %d: %d rows still name the placeholder", round, n)
			}
			if n := storetest.Int(t, s, "SELECT count(*) FROM issues WHERE project_id = ? AND iid = 1 AND author_id = ?", w.p.ID, winner.ID); n != 1 {
				t.Errorf("round %d: issue one's author is not the winner", round)
			}
			// ben (assigned to issue two with ann, now the winner) and
			// the other project's cid, to the winner at once.
			errs = race(s, [3]any{w.p.ID, w.ph2.Username, winner.Username}, [3]any{w.q.ID, w.other.Username, winner.Username})
			if errs[0] != nil || errs[1] != nil {
				t.Errorf("round %d: two placeholders to one user: %v", round, errs)
			}
			if n := storetest.Int(t, s, "SELECT count(*) FROM issue_assignees a JOIN issues i ON i.id = a.issue_id WHERE i.project_id = ? AND i.iid = 2", w.p.ID); n != 1 {
				t.Errorf("round %d: issue two has %d assignees, want the winner once", round, n)
			}

			// Two placeholders on one issue, to one user, at once.
			v := newReassignWorldIn(t, s, sfx+"b")
			errs = race(s, [3]any{v.p.ID, v.ph1.Username, v.alice.Username}, [3]any{v.p.ID, v.ph2.Username, v.alice.Username})
			if errs[0] != nil || errs[1] != nil {
				t.Errorf("round %d: two placeholders of one issue to one user: %v", round, errs)
			}
			if got := storetest.Ints(t, s, "SELECT a.user_id FROM issue_assignees a JOIN issues i ON i.id = a.issue_id WHERE i.project_id = ? AND i.iid = 2", v.p.ID); !slices.Equal(got, []int64{v.alice.ID}) {
				t.Errorf("round %d: issue two's assignees = %v, want alice (%d) once", round, got, v.alice.ID)
			}
		}
	})
}

// Ensure every column of the database that names a user is one
// ReassignPlaceholder knows: moved, removed with the user, or its own.
func TestUserReferences(t *testing.T) {
	s := storetest.OpenPostgres(t)
	var fks []string
	err := s.DB().Raw(`SELECT c.conrelid::regclass::text || '.' || a.attname FROM pg_constraint c
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
WHERE c.contype = 'f' AND c.confrelid = 'users'::regclass ORDER BY 1`).Scan(&fks).Error
	if err != nil {
		t.Fatal(err)
	}
	known := store.UserReferenceColumns()
	for _, fk := range fks {
		if !slices.Contains(known, fk) {
			t.Errorf("column %s names users, and ReassignPlaceholder does not know it", fk)
		}
	}
	if len(fks) < 15 {
		t.Errorf("found only %d foreign keys to users: %v", len(fks), fks)
	}
}
