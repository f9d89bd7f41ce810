package spec

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/importexport"
)

// Ensure an open merge request whose source branch the archive's bundle
// lacks (deleted on the exporting side, its commits nowhere else) is
// served from the merge_request_diff the archive carries: the copy's
// get_merge_request (diffs with full patches, commits) and
// get_merge_request_diffs answer as the source, where git still has the
// branch, does.
func TestImportExport_mergeRequestDiffWithoutItsBranch(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	ctx := context.Background()
	st := h.Env.Store
	src := toolsProject(t, h, "gitlab-org/gitlab-mcp")
	open, _, err := st.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{src.ID}, State: models.MergeRequestOpened, Limit: 100})
	if err != nil || len(open) == 0 {
		t.Fatalf("open merge requests of the demo: %v, %d", err, len(open))
	}
	mr := open[0]

	var archive bytes.Buffer
	if _, err := importexport.Export(ctx, st, h.Env.Repositories, src, &archive, t.TempDir()); err != nil {
		t.Fatalf("export: %v", err)
	}
	// The same archive with a bundle that lacks the source branch: a
	// clone of the source's repository without it.
	clone := filepath.Join(t.TempDir(), "clone.git")
	runGit(t, "", "clone", "--quiet", "--mirror", h.Env.Repositories.Path(src.ID), clone)
	runGit(t, clone, "update-ref", "-d", "refs/heads/"+mr.SourceBranch)
	bundle := filepath.Join(t.TempDir(), "project.bundle")
	runGit(t, clone, "bundle", "create", "--quiet", bundle, "HEAD", "--branches", "--tags")
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "export.tar.gz")
	if err := os.WriteFile(file, replaceEntry(t, archive.Bytes(), "project.bundle", b), 0o600); err != nil {
		t.Fatal(err)
	}

	a, err := importexport.Read(ctx, h.Env.Repositories.Git(), file, t.TempDir(), importexport.Limits{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	defer a.Close()
	sum, err := importexport.Import(ctx, st, h.Env.Repositories, a, importexport.ImportOptions{GroupPath: "gitlab-org", ProjectPath: "mcp-no-branch",
		Name: src.Name + " (copy)", Visibility: src.Visibility, CreateProject: specCreateProject})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	dst := sum.Project
	if _, err := exec.Command("git", "--git-dir", h.Env.Repositories.Path(dst.ID), "rev-parse", "--verify", "--quiet",
		"refs/heads/"+mr.SourceBranch).Output(); err == nil {
		t.Fatalf("the copy has branch %s: the test needs it gone", mr.SourceBranch)
	}

	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"get_merge_request", map[string]any{"merge_request_iid": mr.IID, "include": []string{"diffs"}, "detail": "full_patch"}},
		{"get_merge_request", map[string]any{"merge_request_iid": mr.IID, "include": []string{"commits"}}},
		{"get_merge_request_diffs", map[string]any{"merge_request_iid": mr.IID}},
	} {
		args := func(p string) map[string]any {
			out := map[string]any{}
			for k, v := range call.args {
				out[k] = v
			}
			if call.tool == "get_merge_request" {
				out["project_id"] = p
			} else {
				out["id"] = p
			}
			return out
		}
		want := h.toolsRead(t, ce, "root", call.tool, args(src.PathWithNamespace))
		got := h.toolsRead(t, ce, "root", call.tool, args(dst.PathWithNamespace))
		if w, g := neutral(want, src), neutral(got, dst, src.PathWithNamespace); w != g {
			t.Errorf("%s %v: the copy answers differently:\n%s", call.tool, call.args, firstDifference(w, g))
		}
	}
}

// replaceEntry returns the .tar.gz archive with entry name's content
// replaced by body.
func replaceEntry(t *testing.T, archive []byte, name string, body []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	found := false
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if hd.Name == name {
			content, found = body, true
		}
		hd.Size = int64(len(content))
		if err := tw.WriteHeader(hd); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("the archive has no %s", name)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func runGit(t *testing.T, gitDir string, args ...string) {
	t.Helper()
	if gitDir != "" {
		args = append([]string{"--git-dir", gitDir}, args...)
	}
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
