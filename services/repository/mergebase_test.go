package repository_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository"
)

// TestMergeBaseMatchesGit: the merge base Compare reports is one of those
// git merge-base --all finds (the only one when git finds one), for every
// pair of commits of a history with branches, merges, a criss-cross merge
// and unrelated roots.
func TestMergeBaseMatchesGit(t *testing.T) {
	f := newFixture(t)
	day := 0
	commit := func(msg string) string {
		day++
		return f.commit(msg, fmt.Sprintf("2026-09-%02dT10:00:00Z", day), map[string]string{msg + ".txt": msg})
	}
	merge := func(other, msg string) string {
		day++
		f.date = fmt.Sprintf("2026-09-%02dT10:00:00Z", day)
		defer func() { f.date = "" }()
		f.git(f.work, "merge", "-q", "--no-ff", "-m", msg, other)
		return f.git(f.work, "rev-parse", "HEAD")
	}
	var all []string
	all = append(all, commit("m1"), commit("m2"))
	f.git(f.work, "checkout", "-q", "-b", "a")
	all = append(all, commit("a1"), commit("a2"))
	f.git(f.work, "checkout", "-q", "main")
	all = append(all, commit("m3"))
	f.git(f.work, "checkout", "-q", "-b", "b")
	all = append(all, commit("b1"))
	// Criss-cross: a and b each merge the other.
	f.git(f.work, "checkout", "-q", "a")
	all = append(all, merge("b", "a merges b"))
	f.git(f.work, "checkout", "-q", "b")
	all = append(all, merge("a~1", "b merges a~1"))
	all = append(all, commit("b2"))
	f.git(f.work, "checkout", "-q", "a")
	all = append(all, commit("a3"))
	f.git(f.work, "checkout", "-q", "main")
	all = append(all, merge("a", "main merges a"), commit("m4"))
	f.git(f.work, "checkout", "-q", "--orphan", "lonely")
	all = append(all, commit("root2"))
	f.git(f.work, "checkout", "-q", "main")
	f.push()
	ctx := context.Background()
	check := func(how string) {
		t.Helper()
		l := f.open()
		for _, x := range all {
			for _, y := range all {
				cmp, err := l.Compare(ctx, x, y, repository.CompareOptions{SkipDiffs: true, MaxCommits: 1})
				if err != nil {
					t.Fatalf("%s: Compare(%s, %s): %v", how, x[:8], y[:8], err)
				}
				out, gerr := f.gitErr("", "merge-base", "--all", x, y)
				var want []string
				if gerr == nil {
					want = strings.Split(out, "\n")
				}
				switch {
				case len(want) == 0 && cmp.MergeBaseSHA != "":
					t.Errorf("%s: merge base of %s and %s = %s, git finds none", how, x[:8], y[:8], cmp.MergeBaseSHA[:8])
				case len(want) > 0 && !slices.Contains(want, cmp.MergeBaseSHA):
					t.Errorf("%s: merge base of %s and %s = %q, git merge-base --all = %v", how, x[:8], y[:8], cmp.MergeBaseSHA, want)
				}
			}
		}
	}
	check("objects")
	// The walk reads the commit-graph where it has the commits: a split
	// chain (what housekeeping writes), one that lacks the newest
	// commits, a single file, and one that cannot be read.
	f.git("", "commit-graph", "write", "--reachable", "--split=no-merge")
	check("commit-graph chain")
	f.git(f.work, "checkout", "-q", "b")
	all = append(all, commit("b3"))
	f.git(f.work, "checkout", "-q", "main")
	all = append(all, merge("b", "main merges b"))
	f.push()
	check("commit-graph without the newest commits")
	f.git("", "commit-graph", "write", "--reachable", "--split=no-merge")
	check("commit-graph chain of two")
	graphs, err := filepath.Glob(filepath.Join(f.bare, "objects", "info", "commit-graphs", "graph-*.graph"))
	if err != nil || len(graphs) < 2 {
		t.Fatalf("commit-graph files %v (%v), want a chain of at least two", graphs, err)
	}
	for _, g := range graphs {
		if err := os.WriteFile(g, []byte("not a commit-graph"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("commit-graph that cannot be read")
	f.git("", "commit-graph", "write", "--reachable")
	if _, err := os.Stat(filepath.Join(f.bare, "objects", "info", "commit-graph")); err != nil {
		t.Fatalf("git commit-graph write wrote no single file: %v", err)
	}
	check("one commit-graph file")
}
