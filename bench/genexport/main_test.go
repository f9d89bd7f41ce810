package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
	gitrepo "gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Ensure a generated archive, in GitLab's own shape (./-prefixed entries,
// jobs under stages[].statuses, label links carrying their label, notes
// their author's name), imports whole: every record counted, what glmcp
// does not model counted as skipped, one placeholder per unknown user.
func TestGenerated_imports(t *testing.T) {
	s := storetest.OpenSQLite(t)
	repos := storetest.Repositories(t, s)
	file := filepath.Join(t.TempDir(), "gen.tar.gz")
	if err := run(opts{issues: 30, mrs: 7, notes: 2, pipelines: 4, users: 3, out: file}); err != nil {
		t.Fatal(err)
	}
	sum := importArchive(t, s, repos, file)
	want := map[string]int{"issues": 30, "merge_requests": 7, "notes": 30*2 + 7*3, "ci_pipelines": 4, "jobs": 12,
		"labels": 6, "milestones": 5, "approvals": 7, "releases": 1, "release links": 1}
	for k, v := range want {
		if sum.Imported[k] != v {
			t.Errorf("imported %s = %d, want %d (summary %v)", k, sum.Imported[k], v, sum.Imported)
		}
	}
	if sum.Skipped["protected_branches"] != 1 || sum.Skipped["resource_state_events"] != 30 || sum.Skipped["award_emoji"] != 30*2+7*2 {
		t.Errorf("skipped = %v", sum.Skipped)
	}
	if sum.Placeholders != 3 || sum.Repository == nil || len(sum.Repository.Branches) != 8 || sum.Repository.DefaultBranch != "main" {
		t.Errorf("placeholders %d, repository %+v", sum.Placeholders, sum.Repository)
	}
	if sum.Project.Description != "A generated project — ünïcødé 🚀" {
		t.Errorf("description = %q", sum.Project.Description)
	}
}

// Ensure an archive past 50,000 issues, with merge requests beside them,
// gives every note its own id and discussion (they once collided: issue
// 50,001's notes had merge request 1's ids, and the import refused the
// shared discussion) and imports whole.
func TestGenerated_largeHasUniqueNoteIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("60,000 issues: not in -short")
	}
	file := filepath.Join(t.TempDir(), "large.tar.gz")
	const issues, mrs = 60000, 3
	if err := run(opts{issues: issues, mrs: mrs, notes: 1, pipelines: 2, users: 3, out: file}); err != nil {
		t.Fatal(err)
	}
	ids, discussions := map[float64]bool{}, map[string]bool{}
	eachRecord(t, file, func(name string, line []byte) {
		var rec struct {
			Notes []struct {
				ID           float64 `json:"id"`
				DiscussionID string  `json:"discussion_id"`
			} `json:"notes"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		for _, n := range rec.Notes {
			if ids[n.ID] || discussions[n.DiscussionID] {
				t.Fatalf("%s: note %v (discussion %s) repeats an id", name, n.ID, n.DiscussionID)
			}
			ids[n.ID], discussions[n.DiscussionID] = true, true
		}
	})
	if want := issues + mrs*2; len(ids) != want {
		t.Fatalf("%d notes, want %d", len(ids), want)
	}
	s := storetest.OpenSQLite(t)
	repos := storetest.Repositories(t, s)
	sum := importArchive(t, s, repos, file)
	if sum.Imported["issues"] != issues || sum.Imported["notes"] != issues+mrs*2 || sum.Imported["merge_requests"] != mrs {
		t.Errorf("imported %v", sum.Imported)
	}
}

// importArchive imports file into s as gen/small, its group created on
// the way.
func importArchive(t *testing.T, s *store.Store, repos *gitrepo.Storage, file string) *importexport.Summary {
	t.Helper()
	ctx := context.Background()
	a, err := importexport.Read(ctx, repos.Git(), file, t.TempDir(), importexport.Limits{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	defer a.Close()
	sum, err := importexport.Import(ctx, s, repos, a, importexport.ImportOptions{GroupPath: "gen", ProjectPath: "small",
		CreateProject: func(ctx context.Context, tx *store.Store, group string, p *models.Project) (*models.Project, error) {
			g := &models.Group{Name: group, Path: group, Visibility: models.VisibilityPrivate}
			if err := tx.Groups.CreateGroup(ctx, g); err != nil && !errors.Is(err, models.ErrConflict) {
				return nil, err
			}
			p.NamespaceID = g.ID
			return p, tx.Projects.CreateProject(ctx, p)
		}})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return sum
}

// Ensure the rare terms bench/store searches (its works.go) match the
// same few records in a small and a larger archive: a merge request's
// title ends its number with a colon, as an issue's does, so "Merge
// request 42:" is one merge request where "Merge request 42" is also
// 420–429 once the project has them.
func TestGenerated_rareTermsMatchAsManyAtAnySize(t *testing.T) {
	for _, o := range []opts{{issues: 1000, mrs: 50}, {issues: 7800, mrs: 430}} {
		file := filepath.Join(t.TempDir(), "gen.tar.gz")
		o.notes, o.pipelines, o.users, o.out = 5, 1, 3, file
		if err := run(o); err != nil {
			t.Fatal(err)
		}
		got := countMatches(t, file, "Issue 777:", "on Issue 777 —", "Merge request 42:", "Merge request 42")
		want := map[string]int{"Issue 777:": 1, "on Issue 777 —": 5, "Merge request 42:": 1, "Merge request 42": 1}
		if o.mrs >= 429 {
			want["Merge request 42"] = 11
		}
		if !maps.Equal(got, want) {
			t.Errorf("%d issues, %d merge requests: records matching each term %v, want %v", o.issues, o.mrs, got, want)
		}
	}
}

// countMatches counts, per term, the issues and merge requests whose
// title or description holds it and the notes whose body does, ignoring
// case as ILIKE does.
func countMatches(t *testing.T, file string, terms ...string) map[string]int {
	t.Helper()
	out := map[string]int{}
	has := func(text string) {
		for _, term := range terms {
			if strings.Contains(strings.ToLower(text), strings.ToLower(term)) {
				out[term]++
			}
		}
	}
	eachRecord(t, file, func(_ string, line []byte) {
		var rec struct {
			Title, Description string
			Notes              []struct {
				Note string `json:"note"`
			} `json:"notes"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		has(rec.Title + "\n" + rec.Description)
		for _, n := range rec.Notes {
			has(n.Note)
		}
	})
	return out
}

// eachRecord calls fn with every issue and merge request record (one
// NDJSON line, its file's name) of the export archive file.
func eachRecord(t *testing.T, file string, fn func(name string, line []byte)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "./tree/project/issues.ndjson" && h.Name != "./tree/project/merge_requests.ndjson" {
			continue
		}
		sc := bufio.NewScanner(tr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fn(h.Name, sc.Bytes())
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
}
