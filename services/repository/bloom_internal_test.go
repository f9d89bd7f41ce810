package repository

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestBloomFiltersAsGitWrites: for every commit of a history whose
// commit-graph git wrote with --changed-paths, the commit's filter may
// hold each path (and leading directory) git diff-tree lists as changed
// against its first parent (a filter that misses one would hide a commit
// from a path's log), and it rules out most of the paths the commit left
// alone (or the filters would be read wrong and save nothing).
func TestBloomFiltersAsGitWrites(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	paths := []string{"a.txt", "src/main.c", "src/lib/util.c", "src/lib/x.h", "doc/readme.md", "Makefile", "t/t0001.sh", "t/t0002.sh", "deep/er/still/file.go"}
	var in bytes.Buffer
	for i := range 120 {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> %d +0000\ndata 2\nc\n", i+1, 1_800_000_000+i)
		if i > 0 {
			fmt.Fprintf(&in, "from :%d\n", i)
		}
		for k, p := range paths {
			if (i+k)%(k+2) == 0 || i == 0 {
				fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%d\n", p, len(fmt.Sprint(i))+1, i)
			}
		}
	}
	cmd := exec.Command("git", "--git-dir", dir, "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitOut(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	g := openCommitGraph(dir)
	if g == nil || len(g.layers) != 1 || g.layers[0].bidx == nil {
		t.Fatalf("commit-graph %+v: want one layer with Bloom filters", g)
	}
	defer g.Close()
	ruledOut, asked := 0, 0
	for _, c := range strings.Fields(gitOut(t, dir, "rev-list", "main")) {
		pos, err := g.idx.GetIndexByHash(plumbing.NewHash(c))
		if err != nil {
			t.Fatal(err)
		}
		f, ly := g.filter(pos)
		if f == nil {
			t.Fatalf("commit %s has no filter", c)
		}
		changed := map[string]bool{}
		for _, p := range strings.Split(gitOut(t, dir, "diff-tree", "-r", "-t", "--root", "--no-commit-id", "--name-only", c), "\n") {
			changed[p] = true
		}
		for _, p := range append(paths, "src", "src/lib", "doc", "t", "deep", "deep/er", "deep/er/still", "nope", "src/nope.c") {
			k, ok := newBloomKey(p, ly.version, ly.numHashes)
			if !ok {
				t.Fatalf("no key for %q", p)
			}
			switch may := k.mayContain(f); {
			case changed[p] && !may:
				t.Errorf("commit %s changed %q, its filter says not", c[:8], p)
			case !changed[p]:
				asked++
				if !may {
					ruledOut++
				}
			}
		}
	}
	if ruledOut < asked*9/10 {
		t.Errorf("the filters ruled out %d of %d unchanged paths, want at least 90%%", ruledOut, asked)
	}
}

// TestMurmur3: git's murmur3_seeded_v2 on its own test vectors (t0095).
func TestMurmur3(t *testing.T) {
	for _, tc := range []struct {
		seed uint32
		in   string
		want uint32
	}{
		{0, "", 0x00000000},
		{0, "Hello world!", 0x627b0c2c},
		{0, "The quick brown fox jumps over the lazy dog", 0x2e4ff723},
	} {
		if got := murmur3(tc.seed, tc.in); got != tc.want {
			t.Errorf("murmur3(%#x, %q) = %#x, want %#x", tc.seed, tc.in, got, tc.want)
		}
	}
}
