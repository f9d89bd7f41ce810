package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

var seededTables = []string{
	"users", "namespaces", "projects", "project_members", "labels", "issues", "issue_assignees", "notes",
	"merge_requests", "merge_request_assignees", "merge_request_reviewers",
	"ci_pipelines", "ci_jobs", "internal_ids",
	"milestones", "work_item_parent_links", "issue_links", "wiki_pages", "namespace_members", "releases", "release_links",
}

func tableCounts(t *testing.T, s *store.Store) map[string]int64 {
	t.Helper()
	counts := map[string]int64{}
	for _, table := range seededTables {
		counts[table] = countRows(t, s, table)
	}
	return counts
}

func TestSeed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w, err := demo.Seed(ctx, s)
		if err != nil {
			t.Fatalf("Seed() error = %v", err)
		}
		if !w.Created {
			t.Error("first Seed: Created = false")
		}
		checkDemoUsers(t, w)
		checkDemoWorld(t, s, w)

		counts := tableCounts(t, s)
		again, err := demo.Seed(ctx, s)
		if err != nil {
			t.Fatalf("second Seed() error = %v", err)
		}
		if again.Created {
			t.Error("second Seed: Created = true, want false")
		}
		for k, u := range again.Users() {
			if u.ID != w.Users()[k].ID || u.Username != w.Users()[k].Username {
				t.Errorf("second Seed user %d = %s (%d), want %s (%d)", k, u.Username, u.ID, w.Users()[k].Username, w.Users()[k].ID)
			}
		}
		for path, p := range w.Projects {
			if again.Projects[path] == nil || again.Projects[path].ID != p.ID {
				t.Errorf("second Seed project %q = %+v, want id %d", path, again.Projects[path], p.ID)
			}
		}
		if after := tableCounts(t, s); !mapsEqual(after, counts) {
			t.Errorf("second Seed wrote rows: before %v, after %v", counts, after)
		}
	})
}

func checkDemoUsers(t *testing.T, w *demo.World) {
	t.Helper()
	if !w.Root.Admin || !w.Root.EESeat || !w.Alice.EESeat || w.Bob.EESeat || w.Alice.Admin {
		t.Errorf("admin/EE seats: root %+v alice %+v bob %+v", w.Root, w.Alice, w.Bob)
	}
	if w.Dave.State != models.UserBlocked || !w.Carol.Active() {
		t.Errorf("states: dave %q carol %q, want blocked and active", w.Dave.State, w.Carol.State)
	}
	if len(w.Users()) != 5 {
		t.Errorf("Users() = %d users, want 5", len(w.Users()))
	}
}

func checkDemoWorld(t *testing.T, s *store.Store, w *demo.World) {
	t.Helper()
	ctx := context.Background()
	db := s.DB()

	wantVisibility := map[string]models.Visibility{
		demo.ProjectMCP: models.VisibilityPublic, demo.ProjectOrbit: models.VisibilityInternal,
		demo.ProjectSecret: models.VisibilityPrivate,
	}
	if labs, inspector := w.Groups[demo.GroupLabs], w.Projects[demo.ProjectInspector]; labs == nil || labs.ParentID == nil ||
		*labs.ParentID != w.Groups["gitlab-org"].ID || inspector == nil || !inspector.Archived {
		t.Errorf("subgroup %+v and archived project %+v", labs, inspector)
	} else if level, err := s.Groups.ProjectAccessLevel(ctx, inspector.ID, w.Bob.ID); err != nil || level != models.Reporter {
		t.Errorf("bob in %s (inherited from gitlab-org) = %v, %v; want reporter", demo.ProjectInspector, level, err)
	}
	for path, v := range wantVisibility {
		p := w.Projects[path]
		if p == nil || p.Visibility != v {
			t.Fatalf("project %s = %+v, want visibility %s", path, p, v)
		}
		var issues int64
		db.Model(&models.Issue{}).Where("project_id = ? AND work_item_type_id = ?", p.ID, models.TypeIssue).Count(&issues)
		if issues < 3 || issues > 6 {
			t.Errorf("%s has %d issues, want 3-6", path, issues)
		}
		var labels int64
		db.Model(&models.Label{}).Where("project_id = ?", p.ID).Count(&labels)
		if labels == 0 {
			t.Errorf("%s has no labels", path)
		}
	}

	// Work items: two tasks under #2 of gitlab-mcp, with milestone 18.8;
	// its wiki has pages.
	mcpID := w.Projects[demo.ProjectMCP].ID
	var tasks []models.Issue
	db.Where("project_id = ? AND work_item_type_id = ? AND id IN (SELECT work_item_id FROM work_item_parent_links "+
		"WHERE work_item_parent_id = (SELECT id FROM issues WHERE project_id = ? AND iid = 2))", mcpID, models.TypeTask, mcpID).
		Find(&tasks)
	if len(tasks) != 2 || tasks[0].Milestone != "18.8" || tasks[0].MilestoneID == nil {
		t.Errorf("tasks under gitlab-mcp#2 = %+v, want two in milestone 18.8", tasks)
	}
	var pages int64
	db.Model(&models.WikiPage{}).Where("project_id = ?", mcpID).Count(&pages)
	if pages == 0 {
		t.Error("gitlab-mcp has no wiki pages")
	}

	// Membership: acme/secret-plans has alice (maintainer) only.
	secret := w.Projects[demo.ProjectSecret]
	var members []models.ProjectMember
	db.Where("project_id = ?", secret.ID).Find(&members)
	if len(members) != 1 || members[0].UserID != w.Alice.ID || members[0].AccessLevel != models.Maintainer {
		t.Errorf("secret-plans members = %+v, want alice as maintainer only", members)
	}
	mcp := w.Projects[demo.ProjectMCP]
	wantLevels := map[*models.User]models.AccessLevel{w.Alice: models.Developer, w.Bob: models.Reporter, w.Carol: models.Guest}
	for u, level := range wantLevels {
		m, err := s.Groups.FindProjectMember(ctx, mcp.ID, u.ID)
		if err != nil || m.AccessLevel != level {
			t.Errorf("%s in gitlab-mcp = %+v, %v; want %s", u.Username, m, err, level)
		}
	}
	if _, err := s.Groups.FindProjectMember(ctx, secret.ID, w.Carol.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("carol in secret-plans: %v, want ErrNotFound", err)
	}

	var confidential, internalNotes, systemNotes int64
	db.Model(&models.Issue{}).Where("confidential").Count(&confidential)
	db.Model(&models.Note{}).Where("internal").Count(&internalNotes)
	db.Model(&models.Note{}).Where("system").Count(&systemNotes)
	if confidential != 1 || internalNotes != 1 || systemNotes == 0 {
		t.Errorf("confidential issues %d, internal notes %d, system notes %d; want 1, 1, >0", confidential, internalNotes, systemNotes)
	}
	var threads []struct {
		DiscussionID string
		N            int64
	}
	db.Model(&models.Note{}).Select("discussion_id, count(*) AS n").Where("type = ?", models.NoteTypeDiscussion).
		Group("discussion_id").Having("count(*) > 1").Scan(&threads)
	if len(threads) < 2 {
		t.Errorf("discussions with replies = %d, want at least 2", len(threads))
	}

	var statuses []string
	db.Model(&models.Pipeline{}).Distinct("status").Order("status").Pluck("status", &statuses)
	for _, want := range []string{models.StatusFailed, models.StatusRunning, models.StatusSuccess} {
		if !slices.Contains(statuses, want) {
			t.Errorf("pipeline statuses %v lack %q", statuses, want)
		}
	}
	var mrs []models.MergeRequest
	db.Order("id").Find(&mrs)
	if len(mrs) < 2 || len(mrs) > 3 {
		t.Errorf("merge requests = %d, want 2-3 per project at most", len(mrs))
	}
	checkDemoRepositories(t, s, w, mrs)
}

// demoMainTree reads the demo's main tree of project path from the
// source directory: file path (without the ".txt" a file may carry) to
// content.
func demoMainTree(t *testing.T, path string) map[string]string {
	t.Helper()
	root := filepath.Join("_demo", filepath.FromSlash(path), "main")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, name)
		out[strings.TrimSuffix(filepath.ToSlash(rel), ".txt")] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("read the demo's main tree of %s: %v", path, err)
	}
	return out
}

// checkDemoRepositories checks the demo history with the git command
// line: main holds exactly the demo's main tree (_demo/<project>/main),
// every merge request's source branch is in git (open: at its sha, with
// its commits; merged: in main's history), each repository has a tag and
// commits by demo users, and orbit's draft conflicts with main.
func checkDemoRepositories(t *testing.T, s *store.Store, w *demo.World, mrs []models.MergeRequest) {
	t.Helper()
	for path, p := range w.Projects {
		var want []string
		for file, content := range demoMainTree(t, path) {
			want = append(want, file)
			if got := gitOut(t, s, p.ID, "cat-file", "blob", "main:"+file); got != strings.TrimSuffix(content, "\n") {
				t.Errorf("%s: main:%s differs from the demo's main tree", path, file)
			}
		}
		slices.Sort(want)
		if got := strings.Split(gitOut(t, s, p.ID, "ls-tree", "-r", "--name-only", "main"), "\n"); !slices.Equal(got, want) {
			t.Errorf("%s: git ls-tree main = %v, want the demo's main tree %v", path, got, want)
		}
		if tags := gitOut(t, s, p.ID, "tag"); tags == "" {
			t.Errorf("%s has no tag", path)
		}
		authors := gitOut(t, s, p.ID, "log", "--all", "--format=%an <%ae> %aI")
		for _, line := range strings.Split(authors, "\n") {
			if !strings.Contains(line, "@example.com> 2026-") {
				t.Errorf("%s: commit by %q, want a demo user in 2026", path, line)
			}
		}
		gitOut(t, s, p.ID, "fsck", "--strict")
	}
	for _, mr := range mrs {
		if mr.State == models.MergeRequestMerged {
			// The merge commit is on main, merged the head, and the merge
			// base is the one recorded.
			if _, err := gitRun(s, mr.ProjectID, "merge-base", "--is-ancestor", mr.MergeCommitSHA, "main"); err != nil || mr.MergeCommitSHA == "" {
				t.Errorf("merged %q: merge commit %q is not in main's history", mr.Title, mr.MergeCommitSHA)
				continue
			}
			if got := gitOut(t, s, mr.ProjectID, "rev-parse", mr.MergeCommitSHA+"^2"); got != mr.SHA {
				t.Errorf("merged %q: the merge commit's second parent is %s, head %s", mr.Title, got, mr.SHA)
			}
			if got := gitOut(t, s, mr.ProjectID, "merge-base", mr.MergeCommitSHA+"^1", mr.SHA); got != mr.DiffBaseSHA {
				t.Errorf("merged %q: merge base %s, recorded %s", mr.Title, got, mr.DiffBaseSHA)
			}
			continue
		}
		if got := gitOut(t, s, mr.ProjectID, "rev-parse", "refs/heads/"+mr.SourceBranch); got != mr.SHA {
			t.Errorf("%q: branch %s at %s, merge request sha %s", mr.Title, mr.SourceBranch, got, mr.SHA)
		}
		if got := gitOut(t, s, mr.ProjectID, "merge-base", "main", mr.SourceBranch); got != mr.DiffBaseSHA {
			t.Errorf("%q: merge base %s, recorded %s", mr.Title, got, mr.DiffBaseSHA)
		}
		if n := gitOut(t, s, mr.ProjectID, "rev-list", "--count", "main.."+mr.SourceBranch); n != "2" {
			t.Errorf("%q: %s commits in %s not in main, want 2", mr.Title, n, mr.SourceBranch)
		}
		_, err := gitRun(s, mr.ProjectID, "merge-tree", "--write-tree", "main", mr.SourceBranch)
		if conflicts := err != nil; conflicts != (mr.MergeStatus == models.MergeStatusCannotBeMerged) {
			t.Errorf("%q: git merge-tree conflicts = %v, merge status %s", mr.Title, conflicts, mr.MergeStatus)
		}
	}
}

// gitRun runs the git command line on project id's repository.
func gitRun(s *store.Store, id int64, args ...string) (string, error) {
	dir := s.Projects.Repositories().(*repository.Storage).Path(id)
	out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).CombinedOutput()
	return strings.TrimSuffix(string(out), "\n"), err
}

func gitOut(t *testing.T, s *store.Store, id int64, args ...string) string {
	t.Helper()
	out, err := gitRun(s, id, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func TestSeed_deterministic(t *testing.T) {
	// Two databases seeded apart hold the same rows, timestamps included.
	ctx := context.Background()
	var dumps [2]string
	for k := range dumps {
		s := storetest.OpenSQLite(t)
		if _, err := demo.Seed(ctx, s); err != nil {
			t.Fatalf("Seed() error = %v", err)
		}
		var b strings.Builder
		for _, table := range seededTables {
			var rows []map[string]any
			if err := s.DB().Table(table).Order("1, 2").Find(&rows).Error; err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			js, _ := json.Marshal(rows)
			fmt.Fprintf(&b, "%s %s\n", table, js)
		}
		// The repositories hold the same commits, tags and branches.
		for _, id := range storetest.Ints(t, s, "SELECT id FROM projects ORDER BY id") {
			fmt.Fprintf(&b, "refs of %d:\n%s\n", id, gitOut(t, s, id, "for-each-ref", "--format=%(refname) %(objectname)"))
		}
		dumps[k] = b.String()
	}
	if dumps[0] != dumps[1] {
		t.Errorf("two seeded databases differ:\n%s\n---\n%s", dumps[0], dumps[1])
	}
}

func TestSeed_foreignRoot(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		if err := s.Users.CreateUser(context.Background(), &models.User{Username: "root", Name: "root", Email: "root@example.com"}); err != nil {
			t.Fatal(err)
		}
		_, err := demo.Seed(context.Background(), s)
		if !errors.Is(err, models.ErrConflict) {
			t.Fatalf("Seed() with an unrelated root = %v, want models.ErrConflict", err)
		}
		if n := countRows(t, s, "users"); n != 1 {
			t.Errorf("users = %d, want 1 (nothing seeded)", n)
		}
	})
}

// Ensure Seed refuses, naming them, the users and groups it would create
// that exist already (the README's `users create alice` before `seed
// --demo` ended in a nil pointer panic), and writes nothing.
func TestSeed_besideExistingData(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(ctx context.Context, s *store.Store) error
	}{
		{"username", `user "alice"`, func(ctx context.Context, s *store.Store) error {
			return s.Users.CreateUser(ctx, &models.User{Username: "alice", Name: "Alice", Email: "alice@corp.example"})
		}},
		{"email", `e-mail alice@example.com (user "alice2")`, func(ctx context.Context, s *store.Store) error {
			return s.Users.CreateUser(ctx, &models.User{Username: "alice2", Name: "Alice", Email: "alice@example.com"})
		}},
		{"group", `group "acme"`, func(ctx context.Context, s *store.Store) error {
			return s.Groups.CreateGroup(ctx, &models.Group{Name: "acme", Path: "acme", Visibility: models.VisibilityPrivate})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, s *store.Store) {
				ctx := context.Background()
				if err := tc.make(ctx, s); err != nil {
					t.Fatal(err)
				}
				before := tableCounts(t, s)
				w, err := demo.Seed(ctx, s)
				if !errors.Is(err, models.ErrConflict) || w != nil {
					t.Fatalf("Seed() = %v, %v; want nil, models.ErrConflict", w, err)
				}
				if msg := err.Error(); !strings.HasSuffix(msg, "in the way: "+tc.want+": conflict") {
					t.Errorf("Seed() error %q does not name %s", msg, tc.want)
				}
				if after := tableCounts(t, s); !mapsEqual(before, after) {
					t.Errorf("Seed() wrote rows: %v -> %v", before, after)
				}
			})
		})
	}
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

func countRows(t *testing.T, s *store.Store, table string) int64 {
	t.Helper()
	var n int64
	if err := s.DB().Table(table).Count(&n).Error; err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}
