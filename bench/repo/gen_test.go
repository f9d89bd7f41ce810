package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// smallParams is a repository of the big one's shape that builds in about
// a second.
func smallParams() params {
	p := defaultParams()
	p.Commits, p.Files, p.Tags, p.LargeKiB, p.MRCommits, p.Treewide = 500, 200, 20, 64, 5, 2
	return p
}

// Ensure the generator builds a valid repository of the requested shape,
// with the same commit ids every time.
func TestGenerate(t *testing.T) {
	if _, err := gitOut(context.Background(), t.TempDir(), "version"); err != nil {
		t.Skip("no git:", err)
	}
	ctx := context.Background()
	p := smallParams()
	var heads []string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i)+".git")
		b, err := buildRepository(ctx, dir, p)
		if err != nil {
			t.Fatal(err)
		}
		heads = append(heads, b.Head)
		if i > 0 {
			break
		}
		git := func(args ...string) string {
			t.Helper()
			out, err := gitOut(ctx, dir, args...)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		count := func(out string) int { return len(strings.Split(strings.TrimSpace(out), "\n")) }
		git("fsck", "--strict", "--no-progress")
		if n := strings.TrimSpace(git("rev-list", "--count", "--all")); n != strconv.Itoa(p.Commits) {
			t.Errorf("%s commits, want %d", n, p.Commits)
		}
		if n := count(git("tag")); n != p.Tags {
			t.Errorf("%d tags, want %d", n, p.Tags)
		}
		if n := count(git("ls-tree", "-r", "HEAD")); n != p.Files {
			t.Errorf("%d files, want %d", n, p.Files)
		}
		if out := git("log", "-M", "--diff-filter=R", "--format=%H", "HEAD"); strings.TrimSpace(out) == "" {
			t.Error("no rename")
		}
		if out := git("rev-list", "--merges", "HEAD"); strings.TrimSpace(out) == "" {
			t.Error("no merge")
		}
		if out := git("for-each-ref", "--format=%(refname)", "refs/heads/"); out != "refs/heads/"+defaultBranch+"\nrefs/heads/"+reviewBranch+"\n" {
			t.Errorf("branches %q, want %s and %s", out, defaultBranch, reviewBranch)
		}
		if n := count(git("rev-list", defaultBranch+".."+reviewBranch)); n != p.MRCommits {
			t.Errorf("%d commits on %s, want %d", n, reviewBranch, p.MRCommits)
		}
		if n := count(git("log", "--format=%H", "--grep=^"+treewideTitle, "HEAD")); n < 1 {
			t.Error("no treewide commit")
		}
		for _, path := range []string{busyPath, coldPath, largeText, largePO, largeBinary} {
			git("cat-file", "-e", "HEAD:"+path)
		}
		if n := count(git("grep", "-l", blobTerm, "HEAD")); n < 3 {
			t.Errorf("%s in %d files, want a few", blobTerm, n)
		}
		if n := count(git("log", "-i", "--grep="+commitTerm, "--format=%H", "HEAD")); n < 1 {
			t.Errorf("%s in %d commit messages, want some", commitTerm, n)
		}
		if last := count(git("log", "--format=%H", "--", coldPath)); last != 1 {
			t.Errorf("%s touched by %d commits, want 1 (the first)", coldPath, last)
		}
	}
	if heads[0] != heads[1] {
		t.Errorf("heads %s and %s: the generator is not deterministic", heads[0], heads[1])
	}
}
