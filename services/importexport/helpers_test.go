package importexport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/demo"
	"gitlab.com/glmcp/glmcp/services/importexport"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// createProject creates p in the top-level group groupPath, making the
// group when it is missing (what the CLI passes as CreateProject).
func createProject(ctx context.Context, tx *store.Store, groupPath string, p *models.Project) (*models.Project, error) {
	g, err := tx.Groups.FindGroupByFullPath(ctx, groupPath)
	if errors.Is(err, models.ErrNotFound) {
		g = &models.Group{Name: groupPath, Path: groupPath, Visibility: models.VisibilityPublic}
		err = tx.Groups.CreateGroup(ctx, g)
	}
	if err != nil {
		return nil, err
	}
	p.NamespaceID, p.DefaultBranch = g.ID, "main"
	return p, tx.Projects.CreateProject(ctx, p)
}

// seeded is a store with the demo world, its repositories and the
// project that tests export, made richer: unicode, a large description,
// a milestone on an issue and a merge request, a release with links.
type seeded struct {
	s     *store.Store
	repos *repository.Storage
	w     *demo.World
	p     *models.Project
}

func seed(t *testing.T, s *store.Store) *seeded {
	t.Helper()
	ctx := context.Background()
	w, err := demo.Seed(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	p := w.Projects[demo.ProjectMCP]
	at := demo.BaseTime.Add(240 * time.Hour)
	m := &models.Milestone{ProjectID: p.ID, Title: "Ünïcødé milestone 🚀", Description: "漢字 and emoji 🎉", CreatedAt: at, UpdatedAt: at}
	if err := s.Issues.CreateMilestone(ctx, m); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("Große Beschreibung — ünïcødé — 日本語のテキスト. ", 6000) // ~400 KB
	i := &models.Issue{ProjectID: p.ID, Title: "Ünïcødé title 🚀 — 日本語", Description: big, AuthorID: w.Alice.ID,
		Labels: models.StringList{"bug"}, MilestoneID: &m.ID, Assignees: []models.User{{ID: w.Bob.ID}, {ID: w.Alice.ID}},
		CreatedAt: at, UpdatedAt: at}
	if err := s.At(at).Issues.CreateIssue(ctx, i); err != nil {
		t.Fatal(err)
	}
	if err := s.At(at).Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue, NoteableID: i.ID, ProjectID: p.ID,
		AuthorID: w.Bob.ID, Body: "Réponse interne 🔒", Internal: true, CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	mrs, _, err := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{p.ID}, Limit: 1})
	if err != nil || len(mrs) == 0 {
		t.Fatalf("demo merge requests: %v %d", err, len(mrs))
	}
	if _, err := s.MergeRequests.UpdateMergeRequest(ctx, p.ID, mrs[0].IID, models.MergeRequestUpdate{MilestoneID: ptr(&m.ID)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Releases.CreateRelease(ctx, &models.Release{ProjectID: p.ID, Tag: "v9.9.9-ü", Name: "Rélease ✨", Description: strings.Repeat("Notes de version — ✨ ", 300),
		AuthorID: &w.Alice.ID, ReleasedAt: at, CreatedAt: at, UpdatedAt: at,
		Links: []models.ReleaseLink{{Name: "Binary 📦", URL: "https://example.com/bin", LinkType: "package", CreatedAt: at},
			{Name: "Runbook", URL: "https://example.com/rb", LinkType: "runbook", CreatedAt: at}}}); err != nil {
		t.Fatal(err)
	}
	// What GitLab's export carries and only the archive uses: a label
	// priority, a release milestone, a diff note's first position and
	// line code, force_remove_source_branch, a task.
	db := s.DB().WithContext(ctx)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE labels SET priority = 2 WHERE project_id = ? AND name = 'bug'", []any{p.ID}},
		{"INSERT INTO release_milestones (release_id, milestone_id) SELECT id, ? FROM releases WHERE project_id = ? AND tag = 'v9.9.9-ü'", []any{m.ID, p.ID}},
		{"UPDATE notes SET line_code = ?, original_position = ? WHERE id = (SELECT min(id) FROM notes WHERE project_id = ? AND type = 'DiffNote')",
			[]any{"0123456789abcdef0123456789abcdef01234567_4_5", `{"base_sha":"a","start_sha":"a","head_sha":"b","old_path":"old.go","new_path":"old.go","position_type":"text","old_line":4,"new_line":5}`, p.ID}},
		{"UPDATE merge_requests SET force_remove_source_branch = ? WHERE id = ?", []any{true, mrs[0].ID}},
		{"UPDATE issues SET work_item_type_id = ? WHERE id = ?", []any{models.TypeTask, i.ID}},
	} {
		res := db.Exec(q.sql, q.args...)
		if res.Error != nil || res.RowsAffected != 1 {
			t.Fatalf("%s: %v (%d rows)", q.sql, res.Error, res.RowsAffected)
		}
	}
	for _, page := range []models.WikiPage{
		{Slug: "guides/ünïcødé-page", Title: "ünïcødé page", Content: "# Ünïcødé 🚀\n\n日本語", CreatedAt: at, UpdatedAt: at},
		{Slug: "rdoc-page", Title: "An RDoc page", Format: "rdoc", Content: "= Title\n", CreatedAt: at, UpdatedAt: at},
	} {
		page.ProjectID = p.ID
		if err := s.Releases.CreateWikiPage(ctx, &page); err != nil {
			t.Fatal(err)
		}
	}
	return &seeded{s: s, repos: storetest.Repositories(t, s), w: w, p: p}
}

func ptr[T any](v T) *T { return &v }

// export writes project p's archive into a file of the test's.
func (x *seeded) export(t *testing.T, p *models.Project) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := importexport.Export(context.Background(), x.s, x.repos, p, &buf, t.TempDir()); err != nil {
		t.Fatalf("Export: %v", err)
	}
	file := filepath.Join(t.TempDir(), "export.tar.gz")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// importFile reads and imports an archive into groupPath/name.
func (x *seeded) importFile(t *testing.T, file, path string, lim importexport.Limits, importer *models.User) (*importexport.Summary, error) {
	t.Helper()
	ctx := context.Background()
	a, err := importexport.Read(ctx, x.repos.Git(), file, t.TempDir(), lim)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	g, n, _ := strings.Cut(path, "/")
	return importexport.Import(ctx, x.s, x.repos, a, importexport.ImportOptions{GroupPath: g, ProjectPath: n,
		Importer: importer, CreateProject: createProject})
}

// records reads a project's rows with every database id and project
// reference blanked, as JSON: two projects with the same content read
// the same.
func records(t *testing.T, s *store.Store, projectID int64) string {
	t.Helper()
	r, _, err := s.Imports.LoadProjectRecords(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	for k := range r.Members {
		r.Members[k].ID, r.Members[k].ProjectID = 0, 0
		r.Members[k].CreatedAt, r.Members[k].UpdatedAt = time.Time{}, time.Time{}
	}
	for k := range r.Labels {
		r.Labels[k].ID, r.Labels[k].ProjectID = 0, 0
	}
	sort.Slice(r.Labels, func(i, j int) bool { return r.Labels[i].Name < r.Labels[j].Name })
	for k := range r.Milestones {
		r.Milestones[k].ID, r.Milestones[k].ProjectID = 0, 0
	}
	for k := range r.Issues {
		i := &r.Issues[k]
		i.ID, i.ProjectID, i.MilestoneID = 0, 0, nil
	}
	for k := range r.MergeRequests {
		m := &r.MergeRequests[k]
		m.ID, m.ProjectID, m.MilestoneID = 0, 0, nil
	}
	for k := range r.Notes {
		n := &r.Notes[k]
		n.ID, n.ProjectID, n.NoteableID = 0, 0, 0
	}
	sort.SliceStable(r.Notes, func(i, j int) bool {
		a, b := r.Notes[i], r.Notes[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.Body < b.Body
	})
	for k := range r.Pipelines {
		p := &r.Pipelines[k]
		p.ID, p.ProjectID, p.MergeRequestID, p.UpstreamPipelineID, p.SourceJobID = 0, 0, nil, nil, nil
		p.Variables = nil
		p.Status = asImported(p.Status)
		for j := range p.Jobs {
			p.Jobs[j].ID, p.Jobs[j].PipelineID, p.Jobs[j].ProjectID = 0, 0, 0
			p.Jobs[j].Status = asImported(p.Jobs[j].Status)
		}
	}
	for k := range r.Releases {
		rel := &r.Releases[k]
		rel.ID, rel.ProjectID = 0, 0
		for j := range rel.Links {
			rel.Links[j].ID, rel.Links[j].ReleaseID = 0, 0
		}
	}
	for k := range r.SourceUsers {
		u := &r.SourceUsers[k]
		u.ID, u.ProjectID, u.CreatedAt, u.UpdatedAt = 0, 0, time.Time{}, time.Time{}
	}
	for k := range r.WikiPages {
		// A wiki page's times are its wiki commit's: the export writes
		// one, at the latest page's time.
		w := &r.WikiPages[k]
		w.ID, w.ProjectID, w.CreatedAt, w.UpdatedAt = 0, 0, time.Time{}, time.Time{}
	}
	// The fields kept for the archive alone, which the models leave out
	// of their JSON.
	type noteExtra struct {
		LineCode         string
		OriginalPosition *models.DiffPosition
	}
	extra := struct {
		Records          *store.ProjectRecords
		LabelPriorities  map[string]*int
		DiffNoteExtras   []noteExtra
		ForceRemoveByIID map[int64]bool
	}{Records: r, LabelPriorities: map[string]*int{}, ForceRemoveByIID: map[int64]bool{}}
	for _, l := range r.Labels {
		extra.LabelPriorities[l.Name] = l.Priority
	}
	for _, n := range r.Notes {
		if n.Type == models.NoteTypeDiff {
			extra.DiffNoteExtras = append(extra.DiffNoteExtras, noteExtra{n.LineCode, n.OriginalPosition})
		}
	}
	for _, m := range r.MergeRequests {
		extra.ForceRemoveByIID[m.IID] = m.ForceRemoveSourceBranch
	}
	b, err := json.MarshalIndent(extra, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// asImported is the status a pipeline or job of status s has once
// imported: what had not finished is canceled (GitLab's importer does
// the same), so a project and its imported copy compare alike.
func asImported(s string) string {
	switch s {
	case "success", "failed", "canceled", "skipped":
		return s
	}
	return "canceled"
}

// refs lists a repository's branches and tags with their objects, and
// HEAD.
func refs(t *testing.T, gitDir string) string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/", "refs/tags/").CombinedOutput()
	if err != nil {
		t.Fatalf("for-each-ref: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "--git-dir", gitDir, "symbolic-ref", "HEAD").CombinedOutput()
	if err != nil {
		t.Fatalf("symbolic-ref: %v\n%s", err, head)
	}
	return string(out) + "HEAD " + string(head)
}

// stateTables are the tables an import writes to.
var stateTables = []string{"users", "namespaces", "projects", "project_members", "labels", "milestones", "issues",
	"issue_assignees", "merge_requests", "merge_request_assignees", "merge_request_reviewers", "notes", "approvals",
	"ci_pipelines", "ci_jobs", "releases", "release_links", "internal_ids", "merge_request_diffs", "import_failures",
	"release_milestones", "import_source_users"}

// listing is the files of the repositories directory (names only;
// whatever the staging directory holds counts).
func listing(t *testing.T, root string) string {
	t.Helper()
	var names []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "+tmp" { // the staging directory itself: made on first use
			return nil
		}
		if info.IsDir() {
			// Directories count by what they hold: an empty fan-out
			// directory of @hashed holds nothing (the storage leaves
			// them, as Gitaly does).
			return nil
		}
		names = append(names, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(names, "\n")
}

var zeroLimits importexport.Limits

// diffLines shows the first lines where two texts differ.
func diffLines(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for k := 0; k < max(len(a), len(b)) && len(out) < 40; k++ {
		var x, y string
		if k < len(a) {
			x = a[k]
		}
		if k < len(b) {
			y = b[k]
		}
		if x != y {
			out = append(out, "line "+itoa(k+1)+":\n  want "+cut(x)+"\n  got  "+cut(y))
		}
	}
	return strings.Join(out, "\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
