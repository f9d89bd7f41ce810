package repository_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository"
)

// pathHistory imports into f's bare repository a history that exercises
// git's history simplification at a path: three branches (one an
// unrelated root) with merges that take either side, both, or neither
// (an evil merge), octopus merges, deletions and re-additions, mode
// changes, a directory replaced by a file and back, committer times that
// tie and that go backwards, and names with a glob character and a
// non-ASCII letter. It returns the paths worth asking about.
func pathHistory(t *testing.T, f *fixture, seed int64, commits int) []string {
	t.Helper()
	rnd := rand.New(rand.NewSource(seed))
	type file struct {
		mode, data string
	}
	pool := []string{"a.txt", "b.txt", "d/x.txt", "d/e/y.txt", "d/e/z.txt", "d/e", "f*.txt", "é.txt", "sub/deep/dir/file.c"}
	type branch struct {
		name  string
		tip   int
		files map[string]file
	}
	brs := []*branch{{name: "main", files: map[string]file{}}, {name: "b1"}, {name: "b2", files: map[string]file{}}}
	var in bytes.Buffer
	mark, when := 0, int64(1_800_000_000)
	set := func(files map[string]file, p string, v *file) {
		if p == "d/e" {
			for q := range files {
				if strings.HasPrefix(q, "d/e/") {
					delete(files, q)
				}
			}
		} else if strings.HasPrefix(p, "d/e/") {
			delete(files, "d/e")
		}
		if v == nil {
			delete(files, p)
		} else {
			files[p] = *v
		}
	}
	emit := func(b *branch, parents []int, msg string) {
		mark++
		switch r := rnd.Intn(20); {
		case r < 2: // the same second as the commit before
		case r < 3:
			when -= int64(rnd.Intn(7200)) // a clock behind
		default:
			when += int64(1 + rnd.Intn(600))
		}
		fmt.Fprintf(&in, "commit refs/heads/%s\nmark :%d\nauthor A <a@example.com> %d +0000\ncommitter A <a@example.com> %d +0000\ndata %d\n%s\n",
			b.name, mark, when, when, len(msg), msg)
		for i, p := range parents {
			if i == 0 {
				fmt.Fprintf(&in, "from :%d\n", p)
			} else {
				fmt.Fprintf(&in, "merge :%d\n", p)
			}
		}
		in.WriteString("deleteall\n")
		for _, p := range slices.Sorted(maps.Keys(b.files)) {
			v := b.files[p]
			fmt.Fprintf(&in, "M %s inline %s\ndata %d\n%s\n", v.mode, p, len(v.data), v.data)
		}
		b.tip = mark
	}
	change := func(files map[string]file, i int) {
		p := pool[rnd.Intn(len(pool))]
		switch r := rnd.Intn(10); {
		case r < 2:
			set(files, p, nil)
		case r < 3:
			if v, ok := files[p]; ok {
				v.mode = map[string]string{"100644": "100755", "100755": "100644"}[v.mode]
				set(files, p, &v)
			}
		default:
			set(files, p, &file{mode: "100644", data: fmt.Sprintf("%s at %d\n", p, i)})
		}
	}
	for i := range commits {
		b := brs[rnd.Intn(len(brs))]
		if i == 5 { // b1 branches off main
			b = brs[1]
			b.files = maps.Clone(brs[0].files)
			b.tip = brs[0].tip
		}
		if b.files == nil {
			continue
		}
		var others []*branch
		for _, o := range brs {
			if o != b && o.tip != 0 && o.files != nil {
				others = append(others, o)
			}
		}
		if b.tip != 0 && len(others) > 0 && rnd.Intn(5) == 0 {
			if len(others) > 1 && rnd.Intn(4) > 0 {
				others = others[:1]
			}
			parents := []int{b.tip}
			for _, o := range others {
				parents = append(parents, o.tip)
			}
			switch rnd.Intn(4) {
			case 0: // theirs: the same as the (last) other side
				b.files = maps.Clone(others[len(others)-1].files)
			case 1: // ours
			default: // a mix, sometimes with a change of its own
				for _, o := range others {
					for _, p := range pool {
						if rnd.Intn(2) == 0 {
							if v, ok := o.files[p]; ok {
								set(b.files, p, &v)
							} else {
								set(b.files, p, nil)
							}
						}
					}
				}
				if rnd.Intn(3) == 0 {
					change(b.files, i)
				}
			}
			emit(b, parents, fmt.Sprintf("merge %d", i))
			continue
		}
		for range 1 + rnd.Intn(3) {
			change(b.files, i)
		}
		var parents []int
		if b.tip != 0 {
			parents = []int{b.tip}
		}
		emit(b, parents, fmt.Sprintf("commit %d", i))
	}
	// main ends with merges of both others, so the whole history is in it.
	main := brs[0]
	emit(main, []int{main.tip, brs[1].tip, brs[2].tip}, "octopus")
	cmd := exec.Command("git", "--git-dir", f.bare, "fast-import", "--quiet", "--force")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return append(slices.Clone(pool), "d", "d/e/", "sub", "sub/deep", "nope", "d/nope", "a.txt/x", "f?.txt")
}

// TestLogPathMatchesGit: Log with a path lists what git log -- path does,
// page by page, with and without the first-parent option, on a history
// that exercises git's history simplification; read from the objects,
// from a commit-graph with changed-path Bloom filters (a split chain, one
// that lacks the newest commits, a single file) and from one without.
func TestLogPathMatchesGit(t *testing.T) {
	f := newFixture(t)
	paths := pathHistory(t, f, 33, 400)
	ctx := context.Background()
	check := func(how string) {
		t.Helper()
		l := f.open()
		for _, p := range paths {
			for _, first := range []bool{false, true} {
				args := []string{"--literal-pathspecs", "log", "--format=%H"}
				if first {
					args = append(args, "--first-parent")
				}
				out := f.git("", append(args, "main", "--", strings.TrimSuffix(p, "/"))...)
				var want []string
				if out != "" {
					want = strings.Split(out, "\n")
				}
				for _, pg := range [][2]int{{0, 1000}, {0, 3}, {2, 5}, {len(want) - 1, 1}, {len(want), 4}} {
					opt := repository.LogOptions{Path: p, FirstParent: first, Offset: max(pg[0], 0), Limit: pg[1]}
					page, err := l.Log(ctx, opt)
					if err != nil {
						t.Fatalf("%s: Log(%+v): %v", how, opt, err)
					}
					var got []string
					for _, c := range page.Commits {
						got = append(got, c.ID)
					}
					// The answer is the in-process walk's, not git log's
					// (Log falls back to git log when the walk fails).
					walked, done, werr := repository.PathLogWalk(ctx, l, opt)
					if werr != nil || !done {
						t.Fatalf("%s: the walk of %q did not answer (done %v, %v): Log fell back to git log", how, p, done, werr)
					}
					var walkedIDs []string
					for _, c := range walked.Commits {
						walkedIDs = append(walkedIDs, c.ID)
					}
					if !slices.Equal(walkedIDs, got) || walked.More != page.More {
						t.Errorf("%s: the walk of %q gave %v (more %v), Log %v (more %v)", how, p, walkedIDs, walked.More, got, page.More)
					}
					end := min(opt.Offset+opt.Limit, len(want))
					w := want[min(opt.Offset, len(want)):end]
					if !slices.Equal(got, w) || page.More != (end < len(want)) {
						t.Errorf("%s: Log(path %q, first parent %v, offset %d, limit %d) = %d commits (more %v), want %d of git's %d (more %v)\ngot  %v\nwant %v",
							how, p, first, opt.Offset, opt.Limit, len(got), page.More, len(w), len(want), end < len(want), got, w)
					}
				}
			}
		}
	}
	check("objects")
	f.git("", "commit-graph", "write", "--reachable", "--changed-paths", "--split=no-merge")
	check("commit-graph chain with Bloom filters")
	pathHistory(t, f, 34, 60) // more commits on the same branches
	check("commit-graph without the newest commits")
	f.git("", "commit-graph", "write", "--reachable", "--changed-paths", "--split=no-merge")
	if graphs, _ := filepath.Glob(filepath.Join(f.bare, "objects", "info", "commit-graphs", "graph-*.graph")); len(graphs) < 2 {
		t.Fatalf("commit-graph files %v, want a chain of at least two", graphs)
	}
	check("commit-graph chain of two")
	if err := os.RemoveAll(filepath.Join(f.bare, "objects", "info", "commit-graphs")); err != nil {
		t.Fatal(err)
	}
	f.git("", "commit-graph", "write", "--reachable")
	check("commit-graph without Bloom filters")
	f.git("", "commit-graph", "write", "--reachable", "--changed-paths")
	check("one commit-graph file with Bloom filters")
}
