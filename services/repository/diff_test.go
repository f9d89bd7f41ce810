package repository_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Every kind of change diff-tree reports, read back field by field:
// added, deleted, modified without a final newline, renamed with an edit,
// a pure rename, a mode change, binary, a path with a newline and quotes,
// and a patch over the collapse bound.
func TestCommitDiff_everyKindOfChange(t *testing.T) {
	f := newFixture(t)
	f.commit("base", "2026-01-01T00:00:00Z", map[string]string{
		"gone.txt": "bye\n", "edit.txt": "a\nb\nc", "moved.txt": "one\ntwo\nthree\nfour\nfive\n",
		"same.txt": "identical content\nsecond line\n", "run.sh": "echo\n", "img.bin": "\x00\x01",
		"big.txt": "x\n",
	})
	f.git(f.work, "rm", "-q", "gone.txt")
	f.write(map[string]string{"dir/.keep": ""})
	f.git(f.work, "mv", "moved.txt", "dir/moved again.txt")
	f.git(f.work, "mv", "same.txt", "renamed.txt")
	f.write(map[string]string{
		"edit.txt": "a\nB\nc", "dir/moved again.txt": "one\ntwo\nthree\nfour\nFIVE\n", "img.bin": "\x00\x02",
		"odd\n\"name\".txt": "new\n", "big.txt": strings.Repeat("a long line of text\n", 20000),
	})
	f.git(f.work, "update-index", "--add", "--chmod=+x", "run.sh")
	f.git(f.work, "add", "-A")
	f.git(f.work, "update-index", "--chmod=+x", "run.sh")
	f.git(f.work, "commit", "-q", "-m", "every change")
	f.push()
	files, err := f.open().CommitDiff(context.Background(), "main", repository.CompareOptions{MaxPatchBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]repository.FileDiff{}
	for _, d := range files {
		got[d.NewPath] = d
	}
	if len(files) != 9 {
		t.Fatalf("%d files: %+v", len(files), files)
	}
	check := func(path string, want repository.FileDiff) {
		t.Helper()
		d, ok := got[path]
		if !ok {
			t.Errorf("%q missing from %+v", path, files)
			return
		}
		diff := d.Diff
		d.Diff = ""
		if d != want {
			t.Errorf("%q = %+v\nwant %+v", path, d, want)
		}
		if want.Additions+want.Deletions > 0 && !want.TooLarge && !strings.HasPrefix(diff, "@@ ") {
			t.Errorf("%q patch does not start at its hunk: %q", path, diff)
		}
	}
	check("gone.txt", repository.FileDiff{OldPath: "gone.txt", NewPath: "gone.txt", AMode: "100644", BMode: "0", DeletedFile: true, Deletions: 1})
	check("edit.txt", repository.FileDiff{OldPath: "edit.txt", NewPath: "edit.txt", AMode: "100644", BMode: "100644", Additions: 1, Deletions: 1})
	check("dir/moved again.txt", repository.FileDiff{OldPath: "moved.txt", NewPath: "dir/moved again.txt", AMode: "100644", BMode: "100644", RenamedFile: true, Additions: 1, Deletions: 1})
	check("renamed.txt", repository.FileDiff{OldPath: "same.txt", NewPath: "renamed.txt", AMode: "100644", BMode: "100644", RenamedFile: true})
	check("run.sh", repository.FileDiff{OldPath: "run.sh", NewPath: "run.sh", AMode: "100644", BMode: "100755"})
	check("img.bin", repository.FileDiff{OldPath: "img.bin", NewPath: "img.bin", AMode: "100644", BMode: "100644", Binary: true})
	check("odd\n\"name\".txt", repository.FileDiff{OldPath: "odd\n\"name\".txt", NewPath: "odd\n\"name\".txt", AMode: "0", BMode: "100644", NewFile: true, Additions: 1})
	check("big.txt", repository.FileDiff{OldPath: "big.txt", NewPath: "big.txt", AMode: "100644", BMode: "100644", TooLarge: true, Additions: 20000, Deletions: 1})
	if e := got["edit.txt"].Diff; !strings.Contains(e, "\\ No newline at end of file") {
		t.Errorf("edit.txt patch lost git's no-newline marker: %q", e)
	}
	names, err := f.open().CommitDiff(context.Background(), "main", repository.CompareOptions{SkipPatches: true})
	if err != nil || len(names) != 9 || names[0].Diff != "" || names[0].Additions != 0 {
		t.Errorf("SkipPatches = %+v, %v", names, err)
	}
	root, err := f.open().CommitDiff(context.Background(), "main~1", repository.CompareOptions{})
	if err != nil || len(root) != 7 || !root[0].NewFile {
		t.Errorf("root commit diff = %+v, %v", root, err)
	}
	if _, err := f.open().CommitDiff(context.Background(), "nope", repository.CompareOptions{}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("CommitDiff(nope) = %v", err)
	}
	if _, err := f.open().CommitDiff(context.Background(), "main:edit.txt", repository.CompareOptions{}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("CommitDiff(main:edit.txt) = %v", err)
	}
}

func TestCompareMatchesGit(t *testing.T) {
	f := mergeFixture(t, map[string]string{"main.txt": "m\n"},
		map[string]string{"shared.txt": "1\n2\nthree\n4\n5\n6\n7\n8\n9\n", "new.txt": "n\n"})
	f.git(f.work, "checkout", "-q", "feature")
	f.git(f.work, "mv", "keep.txt", "kept.txt")
	f.commit("rename", "2026-01-04T00:00:00Z", nil)
	f.push()
	ctx := context.Background()
	cmp, err := f.open().Compare(ctx, "main", "feature", repository.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := f.git("", "merge-base", "main", "feature"); cmp.MergeBaseSHA != want {
		t.Fatalf("merge base %s, want %s", cmp.MergeBaseSHA, want)
	}
	var ids []string
	for _, c := range cmp.Commits {
		ids = append(ids, c.ID)
	}
	if want := f.git("", "log", "--format=%H", "main..feature"); strings.Join(ids, "\n") != want {
		t.Fatalf("commits %v, want %s", ids, want)
	}
	byPath := map[string]repository.FileDiff{}
	for _, d := range cmp.Files {
		byPath[d.NewPath] = d
	}
	if want := f.git("", "diff", "--name-only", "main...feature"); len(byPath) != 3 || !strings.Contains(want, "new.txt") {
		t.Fatalf("files %+v, git: %s", cmp.Files, want)
	}
	sh := byPath["shared.txt"]
	gitHunks := f.git("", "diff", "main...feature", "--", "shared.txt")
	gitHunks = gitHunks[strings.Index(gitHunks, "@@"):]
	if strings.TrimSpace(sh.Diff) != gitHunks || sh.Additions != 1 || sh.Deletions != 1 {
		t.Fatalf("shared.txt diff = %q (+%d -%d)\nwant %q", sh.Diff, sh.Additions, sh.Deletions, gitHunks)
	}
	if n := byPath["new.txt"]; !n.NewFile || n.AMode != "0" || n.BMode != "100644" || n.Diff != "@@ -0,0 +1 @@\n+n\n" {
		t.Fatalf("new.txt = %+v", n)
	}
	if r := byPath["kept.txt"]; !r.RenamedFile || r.OldPath != "keep.txt" {
		t.Fatalf("kept.txt = %+v", r)
	}
	// The diff alone: the same files, no commits.
	only, err := f.open().Compare(ctx, "main", "feature", repository.CompareOptions{SkipCommits: true})
	if err != nil || len(only.Commits) != 0 || only.Commits == nil || len(only.Files) != len(cmp.Files) || only.MergeBaseSHA != cmp.MergeBaseSHA {
		t.Fatalf("Compare(SkipCommits) = %+v, %v", only, err)
	}
	for k := range only.Files {
		if only.Files[k].NewPath != cmp.Files[k].NewPath || only.Files[k].Diff != cmp.Files[k].Diff {
			t.Fatalf("Compare(SkipCommits) file %d = %+v, want %+v", k, only.Files[k], cmp.Files[k])
		}
	}
	diffs, err := f.open().CommitDiff(ctx, "feature~1", repository.CompareOptions{})
	if err != nil || len(diffs) != 2 {
		t.Fatalf("CommitDiff = %+v, %v", diffs, err)
	}
	if _, err := f.open().Compare(ctx, "main", "nope", repository.CompareOptions{}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("Compare(missing) = %v", err)
	}
}
