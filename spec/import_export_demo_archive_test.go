package spec

import (
	"context"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"path/filepath"
	"testing"

	"gitlab.com/glmcp/glmcp/services/importexport"
)

// Ensure the demo archive the project ships
// (services/demo/_archives/gitlab-mcp.tar.gz, written by our exporter
// from the demo project) imports beside the demo world and is served by
// the tools as the demo project is, ids and paths aside: its issues and
// their notes, its merge requests with their diffs and commits, its
// pipelines, releases and members.
func TestImportExport_shippedDemoArchive(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	ctx := context.Background()
	st := h.Env.Store
	src := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	a, err := importexport.Read(ctx, h.Env.Repositories.Git(), filepath.Join("..", "services", "demo", "_archives", "gitlab-mcp.tar.gz"),
		t.TempDir(), importexport.Limits{})
	if err != nil {
		t.Fatalf("read the shipped archive: %v", err)
	}
	defer a.Close()
	sum, err := importexport.Import(ctx, st, h.Env.Repositories, a, importexport.ImportOptions{GroupPath: "gitlab-org",
		ProjectPath: "mcp-from-archive", Name: src.Name + " (archive)", Visibility: src.Visibility, CreateProject: specCreateProject})
	if err != nil {
		t.Fatalf("import the shipped archive: %v", err)
	}
	dst := sum.Project
	if sum.Placeholders != 0 {
		t.Errorf("placeholders = %d: the demo users are the archive's", sum.Placeholders)
	}
	// The import cancels the pipelines and jobs that had not finished, as
	// GitLab's importer does: the demo project is compared as it imports.
	storetest.CancelUnfinishedCI(t, st, src.ID)
	compare := func(tool string, args func(project string) map[string]any) {
		t.Helper()
		want := h.toolsRead(t, ce, "root", tool, args(src.PathWithNamespace))
		got := h.toolsRead(t, ce, "root", tool, args(dst.PathWithNamespace))
		if w, g := neutral(want, src), neutral(got, dst, src.PathWithNamespace); w != g {
			t.Errorf("%s %v: the imported archive answers differently:\n%s", tool, args("P"), firstDifference(w, g))
		}
	}
	r, _, err := st.Imports.LoadProjectRecords(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Issues) == 0 || len(r.MergeRequests) == 0 {
		t.Fatalf("the demo project has %d issues, %d merge requests", len(r.Issues), len(r.MergeRequests))
	}
	for _, i := range r.Issues {
		compare("get_issue", func(p string) map[string]any { return map[string]any{"id": p, "issue_iid": i.IID} })
		compare("get_workitem_notes", func(p string) map[string]any { return map[string]any{"project_id": p, "work_item_iid": i.IID} })
	}
	for _, mr := range r.MergeRequests {
		for _, facet := range []string{"diffs", "commits", "discussions"} {
			compare("get_merge_request", func(p string) map[string]any {
				return map[string]any{"project_id": p, "merge_request_iid": mr.IID, "include": []string{facet}}
			})
		}
	}
	compare("list_pipelines", func(p string) map[string]any { return map[string]any{"id": p} })
	compare("list_releases", func(p string) map[string]any { return map[string]any{"project_id": p} })
	compare("list_project_members", func(p string) map[string]any { return map[string]any{"project_id": p} })
}
