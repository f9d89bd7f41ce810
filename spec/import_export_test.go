package spec

import (
	"context"
	"encoding/json"
	"errors"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
	"gitlab.com/glmcp/glmcp/services/store"
)

// Ensure a rich project exported and imported under another path is
// served by the MCP tools exactly like the original, ids aside: issues
// (unicode, a 300 KB description, assignees, milestones, internal notes),
// their notes, merge requests with their diffs, diff notes and
// discussions, pipelines and their jobs, releases with links, members,
// wiki pages.
func TestImportExport_roundTripThroughTheTools(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	ctx := context.Background()
	st := h.Env.Store
	src := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	users := map[string]*models.User{}
	for _, n := range []string{"root", "alice", "bob"} {
		u, err := st.Users.FindUserByUsername(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		users[n] = u
	}
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	m := &models.Milestone{ProjectID: src.ID, Title: "Ünïcødé 🚀 milestone", CreatedAt: at, UpdatedAt: at}
	if err := st.Issues.CreateMilestone(ctx, m); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("Lange Beschreibung — ünïcødé — 日本語 — émoji 🎉\n", 6000)
	issue := &models.Issue{ProjectID: src.ID, Title: "Ünïcødé — 日本語 — 🚀", Description: big, AuthorID: users["alice"].ID,
		Labels: models.StringList{"bug"}, MilestoneID: &m.ID, Assignees: []models.User{{ID: users["bob"].ID}}, CreatedAt: at, UpdatedAt: at}
	if err := st.At(at).Issues.CreateIssue(ctx, issue); err != nil {
		t.Fatal(err)
	}
	for k, body := range []string{"Première réponse ✅", "Interne 🔒"} {
		if err := st.At(at.Add(time.Duration(k+1)*time.Minute)).Notes.CreateNote(ctx, &models.Note{NoteableType: models.NoteableIssue,
			NoteableID: issue.ID, ProjectID: src.ID, AuthorID: users["root"].ID, Body: body, Internal: k == 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Releases.CreateRelease(ctx, &models.Release{ProjectID: src.ID, Tag: "v0.1.0", Name: "Première ✨",
		Description: "Notes — 日本語", AuthorID: &users["alice"].ID, ReleasedAt: at, CreatedAt: at, UpdatedAt: at,
		Links: []models.ReleaseLink{{Name: "Paquet 📦", URL: "https://example.com/pkg", LinkType: "package", CreatedAt: at}}}); err != nil &&
		!errors.Is(err, models.ErrConflict) {
		t.Fatal(err)
	}

	// An import cancels the pipelines and jobs that had not finished, as
	// GitLab's importer does: the source is compared as it imports.
	storetest.CancelUnfinishedCI(t, st, src.ID)

	file := filepath.Join(t.TempDir(), "export.tar.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importexport.Export(ctx, st, h.Env.Repositories, src, f, t.TempDir()); err != nil {
		t.Fatalf("export: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := importexport.Read(ctx, h.Env.Repositories.Git(), file, t.TempDir(), importexport.Limits{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	defer a.Close()
	sum, err := importexport.Import(ctx, st, h.Env.Repositories, a, importexport.ImportOptions{GroupPath: "gitlab-org", ProjectPath: "mcp-copy",
		Name: src.Name + " (copy)", Visibility: src.Visibility, CreateProject: specCreateProject})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	dst := sum.Project

	// Each tool answers for both projects; the answers must be equal once
	// ids, the paths and signed cursors are taken out.
	compareAs := func(user, tool string, args func(project string) map[string]any) (map[string]any, map[string]any) {
		t.Helper()
		want := h.toolsRead(t, ce, user, tool, args(src.PathWithNamespace))
		got := h.toolsRead(t, ce, user, tool, args(dst.PathWithNamespace))
		w, g := neutral(want, src), neutral(got, dst, src.PathWithNamespace)
		if w != g {
			t.Errorf("%s %v: the copy answers differently:\n%s", tool, args("P"), firstDifference(w, g))
		}
		return want, got
	}
	compare := func(tool string, args func(project string) map[string]any) (map[string]any, map[string]any) {
		t.Helper()
		return compareAs("root", tool, args)
	}
	r, _, err := st.Imports.LoadProjectRecords(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Issues) < 5 || len(r.MergeRequests) < 2 || len(r.Pipelines) < 2 {
		t.Fatalf("the source project is not rich: %d issues, %d merge requests, %d pipelines", len(r.Issues), len(r.MergeRequests), len(r.Pipelines))
	}
	for _, i := range r.Issues {
		compare("get_issue", func(p string) map[string]any { return map[string]any{"id": p, "issue_iid": i.IID} })
		notes := func(p string) map[string]any { return map[string]any{"project_id": p, "work_item_iid": i.IID} }
		compare("get_workitem_notes", notes)
		// A guest sees no internal note, nor a confidential issue, in either.
		if !i.Confidential {
			compareAs("carol", "get_workitem_notes", notes)
		}
	}
	diffNotes := 0
	for _, n := range r.Notes {
		if n.Type == models.NoteTypeDiff {
			diffNotes++
		}
	}
	if diffNotes == 0 {
		t.Fatal("the source project has no diff note")
	}
	for _, mr := range r.MergeRequests {
		args := func(p string) map[string]any { return map[string]any{"project_id": p, "merge_request_iid": mr.IID} }
		compare("get_merge_request", args)
		compare("get_merge_request_notes", args)
		compare("get_merge_request_diffs", func(p string) map[string]any { return map[string]any{"id": p, "merge_request_iid": mr.IID} })
	}
	want, got := compare("list_pipelines", func(p string) map[string]any { return map[string]any{"id": p} })
	wp, gp := toolsItems(t, want), toolsItems(t, got)
	if len(wp) != len(gp) || len(wp) == 0 {
		t.Fatalf("pipelines: %d in the copy, %d in the source", len(gp), len(wp))
	}
	for k := range wp {
		wantJobs := h.toolsRead(t, ce, "root", "get_pipeline_jobs", map[string]any{"id": src.PathWithNamespace, "pipeline_id": toolsInt(t, toolsDig(wp[k], "id"))})
		gotJobs := h.toolsRead(t, ce, "root", "get_pipeline_jobs", map[string]any{"id": dst.PathWithNamespace, "pipeline_id": toolsInt(t, toolsDig(gp[k], "id"))})
		if w, g := neutral(wantJobs, src), neutral(gotJobs, dst, src.PathWithNamespace); w != g {
			t.Errorf("get_pipeline_jobs of pipeline %d: the copy answers differently:\n%s", k, firstDifference(w, g))
		}
	}
	compare("list_releases", func(p string) map[string]any { return map[string]any{"project_id": p} })
	compare("list_wiki_pages", func(p string) map[string]any { return map[string]any{"project_id": p} })
	compare("list_project_members", func(p string) map[string]any { return map[string]any{"project_id": p} })
}

// specCreateProject creates p in the top-level group groupPath (which
// must exist).
func specCreateProject(ctx context.Context, tx *store.Store, groupPath string, p *models.Project) (*models.Project, error) {
	g, err := tx.Groups.FindGroupByFullPath(ctx, groupPath)
	if err != nil {
		return nil, err
	}
	p.NamespaceID, p.DefaultBranch = g.ID, "main"
	return p, tx.Projects.CreateProject(ctx, p)
}

// idKeys are the fields that hold database ids (and signed cursors, which
// carry them).
var idKeys = map[string]bool{"id": true, "project_id": true, "noteable_id": true, "pipeline_id": true,
	"merge_request_id": true, "source_project_id": true, "target_project_id": true, "milestone_id": true,
	"startCursor": true, "endCursor": true, "release_id": true, "job_id": true}

var gids = regexp.MustCompile(`(gid://gitlab/[A-Za-z:]+/)\d+`)
var numberedURL = regexp.MustCompile(`/(-/pipelines|-/jobs|projects)/\d+`)

// neutral is an answer as JSON with ids, cursors and the project's path
// and name taken out.
// Data copied as it is (a release link's URL) names the source's path in
// the copy too: also is that path.
func neutral(v map[string]any, p *models.Project, also ...string) string {
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, v := range x {
				if idKeys[k] {
					continue
				}
				out[k] = walk(v)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for k := range x {
				out[k] = walk(x[k])
			}
			return out
		case string:
			s := strings.ReplaceAll(x, p.PathWithNamespace, "PROJECT")
			for _, a := range also {
				s = strings.ReplaceAll(s, a, "PROJECT")
			}
			if s == p.Name || s == p.Path {
				s = "PROJECT"
			}
			s = gids.ReplaceAllString(s, "${1}N")
			return numberedURL.ReplaceAllString(s, "/$1/N")
		}
		return x
	}
	b, _ := json.MarshalIndent(walk(v), "", " ")
	return string(b)
}

func firstDifference(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for k := 0; k < len(a) || k < len(b); k++ {
		var x, y string
		if k < len(a) {
			x = a[k]
		}
		if k < len(b) {
			y = b[k]
		}
		if x != y {
			if len(x) > 300 {
				x = x[:300]
			}
			if len(y) > 300 {
				y = y[:300]
			}
			return "line " + strconv.Itoa(k+1) + ":\n  source: " + x + "\n  copy:   " + y
		}
	}
	return ""
}
