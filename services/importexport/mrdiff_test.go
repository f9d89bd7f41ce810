package importexport_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Ensure a merge request whose source branch the archive's bundle lacks
// keeps the diff the archive carries: its commits and files (paths,
// modes, flags, patch text) are the exported ones, and they travel on in
// a second export; a merge request whose commits the bundle has keeps
// none (git answers for it).
func TestImport_mergeRequestDiffWithoutCommits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		ctx := context.Background()
		open, _, err := s.MergeRequests.ListMergeRequests(ctx, models.MergeRequestQuery{ProjectIDs: []int64{x.p.ID}, State: models.MergeRequestOpened, Limit: 100})
		if err != nil || len(open) == 0 {
			t.Fatalf("open demo merge requests: %v %d", err, len(open))
		}
		mr := open[0]
		entries := readEntries(t, x.export(t, x.p))
		exported := exportedDiff(t, entries, mr.IID)
		if len(exported.Commits) == 0 || len(exported.Files) == 0 {
			t.Fatalf("the export carries no diff for !%d (%d commits, %d files): it is computed from git", mr.IID, len(exported.Commits), len(exported.Files))
		}
		// The bundle without the source branch: as if it were deleted
		// before the export.
		gitDir := x.repos.Path(x.p.ID)
		git(t, gitDir, "update-ref", "-d", "refs/heads/"+mr.SourceBranch)
		bundle := filepath.Join(t.TempDir(), "project.bundle")
		git(t, gitDir, "bundle", "create", "--quiet", bundle, "HEAD", "--branches", "--tags")
		b, err := os.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		entries = edit(entries, "project.bundle", func(string) string { return string(b) })

		sum, err := x.importFile(t, writeEntries(t, entries), "copies/no-branch", zeroLimits, nil)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		if got := sum.Imported["merge_request_diffs (commits not in the repository)"]; got != 1 {
			t.Errorf("kept diffs = %d, want 1 (summary %v)", got, sum.Imported)
		}
		copied, err := s.MergeRequests.LoadMergeRequest(ctx, sum.Project.ID, mr.IID)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := s.MergeRequests.MergeRequestDiff(ctx, copied.ID)
		if err != nil {
			t.Fatalf("kept diff of !%d: %v", mr.IID, err)
		}
		if len(kept.Commits) != len(exported.Commits) || len(kept.Files) != len(exported.Files) {
			t.Fatalf("kept %d commits, %d files; exported %d, %d", len(kept.Commits), len(kept.Files), len(exported.Commits), len(exported.Files))
		}
		for k, c := range exported.Commits {
			if got := kept.Commits[k]; got.SHA != c.SHA || got.Message != c.Message || got.AuthorName != c.CommitAuthor.Name ||
				got.AuthorEmail != c.CommitAuthor.Email || !got.AuthoredDate.Equal(c.AuthoredDate) {
				t.Errorf("kept commit %d = %+v, exported %+v", k, got, c)
			}
		}
		for k, f := range exported.Files {
			if got := kept.Files[k]; got.NewPath != f.NewPath || got.OldPath != f.OldPath || got.AMode != f.AMode ||
				got.BMode != f.BMode || got.NewFile != f.NewFile || got.DeletedFile != f.DeletedFile || got.Diff != f.UTF8Diff || got.Diff == "" {
				t.Errorf("kept file %d = %+v, exported %+v", k, got, f)
			}
		}
		// Every other merge request is read from git: nothing kept.
		if n := storetest.Int(t, s, "SELECT count(*) FROM merge_request_diffs"); n != 1 {
			t.Errorf("merge_request_diffs rows = %d, want 1", n)
		}
		// Exported again, the kept diff travels on.
		again := exportedDiff(t, readEntries(t, x.export(t, sum.Project)), mr.IID)
		if len(again.Commits) != len(exported.Commits) || len(again.Files) != len(exported.Files) ||
			again.Commits[0].SHA != exported.Commits[0].SHA || again.Files[0].UTF8Diff != exported.Files[0].UTF8Diff {
			t.Errorf("re-exported diff = %d commits, %d files; want the kept one", len(again.Commits), len(again.Files))
		}
	})
}

// archiveDiff is the part of an archive's merge_request_diff the test
// reads.
type archiveDiff struct {
	Commits []struct {
		SHA          string                       `json:"sha"`
		Message      string                       `json:"message"`
		AuthoredDate time.Time                    `json:"authored_date"`
		CommitAuthor struct{ Name, Email string } `json:"commit_author"`
	} `json:"merge_request_diff_commits"`
	Files []struct {
		OldPath     string `json:"old_path"`
		NewPath     string `json:"new_path"`
		AMode       string `json:"a_mode"`
		BMode       string `json:"b_mode"`
		NewFile     bool   `json:"new_file"`
		DeletedFile bool   `json:"deleted_file"`
		UTF8Diff    string `json:"utf8_diff"`
	} `json:"merge_request_diff_files"`
}

func exportedDiff(t *testing.T, entries []entry, iid int64) archiveDiff {
	t.Helper()
	for _, e := range entries {
		if e.name != "tree/project/merge_requests.ndjson" {
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(e.body), "\n") {
			var mr struct {
				IID  int64       `json:"iid"`
				Diff archiveDiff `json:"merge_request_diff"`
			}
			if err := json.Unmarshal([]byte(l), &mr); err != nil {
				t.Fatal(err)
			}
			if mr.IID == iid {
				return mr.Diff
			}
		}
	}
	t.Fatalf("merge request !%d is not in the archive", iid)
	return archiveDiff{}
}

func git(t *testing.T, gitDir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
