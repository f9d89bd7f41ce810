package codeindex

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// gitRun runs git in dir and returns its trimmed output.
func gitRun(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=A", "-c", "user.email=a@example.com", "-c", "init.defaultBranch=main",
		"-c", "core.autocrlf=false", "-c", "gc.auto=0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_DATE=2026-12-01T12:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T12:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// workTree is a git clone that pushes to the bare repositories of
// projects.
type workTree struct {
	tb   testing.TB
	dir  string
	bare []string
}

func newWorkTree(tb testing.TB, s *store.Store, ps ...*models.Project) *workTree {
	w := &workTree{tb: tb, dir: tb.TempDir()}
	gitRun(tb, w.dir, "init", "-q")
	for i, p := range ps {
		w.bare = append(w.bare, storetest.Repositories(tb, s).Path(p.ID))
		gitRun(tb, w.dir, "remote", "add", fmt.Sprintf("r%d", i), w.bare[i])
	}
	return w
}

// write writes files (path → content; "" removes the path), in no
// particular order.
func (w *workTree) write(files map[string]string) {
	w.tb.Helper()
	for p, c := range files {
		full := filepath.Join(w.dir, p)
		if c == "" {
			if err := os.RemoveAll(full); err != nil {
				w.tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			w.tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			w.tb.Fatal(err)
		}
	}
}

// push commits the work tree and force-pushes it to main of every
// project; it returns the commit.
func (w *workTree) push(msg string) string {
	w.tb.Helper()
	gitRun(w.tb, w.dir, "add", "-A")
	gitRun(w.tb, w.dir, "commit", "-q", "--allow-empty", "-m", msg)
	for i := range w.bare {
		gitRun(w.tb, w.dir, "push", "-q", "-f", fmt.Sprintf("r%d", i), "HEAD:refs/heads/main")
	}
	return gitRun(w.tb, w.dir, "rev-parse", "HEAD")
}

// indexRow is a repository_files row but for its id, project and times.
type indexRow struct {
	Ref, FilePath, Content, BlobID string
	Size                           int64
}

func indexRows(tb testing.TB, s *store.Store, projectID int64) []indexRow {
	tb.Helper()
	var rows []indexRow
	if err := s.DB().Model(&models.RepositoryFile{}).Select("ref, file_path, content, blob_id, size").
		Where("project_id = ?", projectID).Order("file_path").Scan(&rows).Error; err != nil {
		tb.Fatal(err)
	}
	return rows
}

// TestIncrementalIndex_equalsFull pushes the same commits to two
// projects: one index is maintained across the pushes (incrementally when
// it can be), the other is rebuilt from scratch at every head; after every
// push the two are the same, row for row, and the first took the path the
// step expects.
func TestIncrementalIndex_equalsFull(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ps := projects(t, s, 2)
		inc, ref := ps[0], ps[1]
		w := newWorkTree(t, s, inc, ref)
		ix := New(storeOf(s), storetest.Repositories(t, s), nil)
		defer ix.Close()
		var paths []bool // what each re-index of inc was: incremental or not
		ix.reindexed = func(id int64, incremental bool) {
			if id == inc.ID {
				paths = append(paths, incremental)
			}
		}

		step := func(name string, wantIncremental bool, head string) {
			t.Helper()
			paths = nil
			st, err := ix.Ensure(ctx, inc.ID, "main")
			if err != nil || st.LastCommit != head {
				t.Fatalf("%s: incremental index %+v, %v; want %s", name, st, err, head)
			}
			if len(paths) != 1 || paths[0] != wantIncremental {
				t.Errorf("%s: re-indexes %v (incremental?), want one, incremental %v", name, paths, wantIncremental)
			}
			if err := s.DB().Exec("DELETE FROM index_statuses WHERE project_id = ?", ref.ID).Error; err != nil {
				t.Fatal(err)
			}
			full, err := ix.Ensure(ctx, ref.ID, "main")
			if err != nil || full.LastCommit != head {
				t.Fatalf("%s: index from scratch %+v, %v; want %s", name, full, err, head)
			}
			if st.Files != full.Files {
				t.Errorf("%s: %d files indexed incrementally, %d from scratch", name, st.Files, full.Files)
			}
			if stored, err := s.CodeIndex.IndexStatus(ctx, inc.ID); err != nil || stored.Files != full.Files || stored.LastCommit != head {
				t.Errorf("%s: stored status %+v, %v; want %d files at %s", name, stored, err, full.Files, head)
			}
			got, want := indexRows(t, s, inc.ID), indexRows(t, s, ref.ID)
			if len(got) != full.Files {
				t.Errorf("%s: %d rows, status says %d", name, len(got), full.Files)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: incremental index differs from the full one", name)
				gm, wm := map[string]indexRow{}, map[string]indexRow{}
				for _, r := range got {
					gm[r.FilePath] = r
				}
				for _, r := range want {
					wm[r.FilePath] = r
				}
				for p, r := range wm {
					if g, ok := gm[p]; !ok || g != r {
						t.Errorf("  %s: incremental %v (present %v), full %.60v", p, g, ok, r)
					}
				}
				for p := range gm {
					if _, ok := wm[p]; !ok {
						t.Errorf("  %s: in the incremental index only", p)
					}
				}
			}
		}

		files := map[string]string{"README.md": "hello\n", "logo.png": "\x89PNG\x00\x00\x01"}
		for i := range 40 {
			files[fmt.Sprintf("src/f%02d.go", i)] = fmt.Sprintf("package src\n\n// file %d\n", i)
		}
		w.write(files)
		head := w.push("initial")
		step("first index", false, head)

		w.write(map[string]string{"src/f00.go": "package src\n// edited\n", "src/f01.go": "package src\n// edited too\n",
			"new/a.go": "package a\n", "new/b.go": "package b\n", "new/c/d.go": "package d\n"})
		step("edits and adds", true, w.push("edit"))

		w.write(map[string]string{"src/f02.go": "", "new/c/d.go": ""})
		step("deletes", true, w.push("delete"))

		gitRun(t, w.dir, "mv", "src/f03.go", "src/g03.go")
		gitRun(t, w.dir, "mv", "new", "renamed")
		step("renames", true, w.push("rename"))

		w.write(map[string]string{"data.bin": "\x00\x01\x02binary", "src/f04.go": "now\x00binary\n", "logo.png": "hello text now\n"})
		step("binary files", true, w.push("binary"))

		w.write(map[string]string{"src/f05.go": strings.Repeat("grown past the bound\n", MaxFileBytes/21+1),
			"big.txt": strings.Repeat("b", MaxFileBytes)}) // at the bound: kept
		step("a file grown past MaxFileBytes", true, w.push("grow"))

		w.write(map[string]string{"src/f05.go": "package src\n// small again\n", "big.txt": strings.Repeat("b", MaxFileBytes+1),
			"latin1.txt": "caf\xe9\n"})
		step("shrunk, grown, not UTF-8", true, w.push("shrink"))

		w.write(map[string]string{"src/f06.go": ""})
		if err := os.Symlink("README.md", filepath.Join(w.dir, "src/f06.go")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(w.dir, "src/f07.go"), 0o755); err != nil {
			t.Fatal(err)
		}
		w.write(map[string]string{"src/f08.go": ""}) // then a directory of that name
		w.write(map[string]string{"src/f08.go/inner.go": "package inner\n"})
		step("a symbolic link, an executable, a file turned directory", true, w.push("modes"))

		many := map[string]string{}
		for i := range minChanges + 1 {
			many[fmt.Sprintf("many/m%03d.txt", i)] = fmt.Sprintf("many %d\n", i)
		}
		w.write(many)
		step("more changes than minChanges and half the index", false, w.push("many"))

		w.write(map[string]string{"many/m000.txt": "edited\n"})
		step("one edit after the big push", true, w.push("one edit"))

		// A force-push to an unrelated history: the old head stays in the
		// repository (no gc), a small tree: diffed like any other.
		gitRun(t, w.dir, "checkout", "-q", "--orphan", "other")
		gitRun(t, w.dir, "rm", "-r", "-q", "-f", ".")
		w.write(map[string]string{"other/x.go": "package x\n", "src/f00.go": "package src\n// edited\n"})
		head = w.push("unrelated")
		step("force-push to an unrelated history", false, head) // more changed paths than half the index
		w.write(map[string]string{"other/y.go": "package y\n"})
		step("a push on the unrelated history", true, w.push("on unrelated"))

		// Another unrelated history, and a gc that drops the indexed
		// commit: the full re-index.
		indexed := gitRun(t, w.dir, "rev-parse", "HEAD")
		gitRun(t, w.dir, "checkout", "-q", "--orphan", "third")
		w.write(map[string]string{"third.go": "package third\n"})
		head = w.push("third")
		gitRun(t, w.dir, "branch", "-q", "-D", "main")
		gitRun(t, w.dir, "branch", "-q", "-D", "other")
		for _, bare := range w.bare {
			gitRun(t, bare, "reflog", "expire", "--expire=now", "--all")
			gitRun(t, bare, "gc", "-q", "--prune=now")
			if err := exec.Command("git", "-C", bare, "cat-file", "-e", indexed).Run(); err == nil {
				t.Fatalf("the indexed commit %s survived the gc", indexed)
			}
		}
		step("force-push that dropped the indexed commit", false, head)
		w.write(map[string]string{"third.go": "package third\n// edited\n"})
		step("a push after the gc", true, w.push("after gc"))

		// The index at MaxFiles: which files a full index keeps depends on
		// their order, so every move to or from the bound is full.
		st, err := s.CodeIndex.IndexStatus(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		ix.maxFiles = st.Files + 2
		w.write(map[string]string{"a0.txt": "a0\n", "z1.txt": "z1\n"})
		step("up to MaxFiles", true, w.push("to the bound"))
		w.write(map[string]string{"a1.txt": "a1\n"}) // in the index, z1.txt out
		step("past MaxFiles", false, w.push("past the bound"))
		w.write(map[string]string{"a0.txt": "", "a1.txt": ""})
		step("from MaxFiles", false, w.push("from the bound"))
		w.write(map[string]string{"z1.txt": "z1 edited\n"})
		step("under MaxFiles", true, w.push("under the bound"))
		ix.maxFiles = MaxFiles

		// The same for MaxTotalBytes: an index that may have stopped at it
		// (within MaxFileBytes of it) is re-indexed fully, as is one that
		// would pass it.
		var total int64
		for _, r := range indexRows(t, s, inc.ID) {
			total += r.Size
		}
		ix.maxTotalBytes = total + MaxFileBytes + 5
		w.write(map[string]string{"0small.txt": "0123456789", "y.big": strings.Repeat("c", MaxFileBytes)})
		step("past MaxTotalBytes", false, w.push("bytes")) // z1.txt out
		w.write(map[string]string{"0small.txt": ""})
		step("from MaxTotalBytes", false, w.push("bytes back")) // z1.txt in
		w.write(map[string]string{"y.big": ""})
		step("from near MaxTotalBytes", false, w.push("bytes down"))
		w.write(map[string]string{"z1.txt": "z1 again\n"})
		step("under MaxTotalBytes", true, w.push("bytes under"))
	})
}

// gatedStore holds every UpdateCodeIndex until release is closed, and
// records what each returned and the ids its rows got.
type gatedStore struct {
	indexStore
	arrived chan struct{}
	release chan struct{}

	mu      sync.Mutex
	results []gatedResult
}

type gatedResult struct {
	won bool
	err error
	ids map[string]int64 // path → id of each row to insert
}

func (g *gatedStore) UpdateCodeIndex(ctx context.Context, prev, next *models.IndexStatus, remove []string, files []models.RepositoryFile, check func(before, after models.CodeIndexSize) error) (bool, error) {
	g.arrived <- struct{}{}
	<-g.release
	won, err := g.indexStore.UpdateCodeIndex(ctx, prev, next, remove, files, check)
	r := gatedResult{won: won, err: err, ids: map[string]int64{}}
	for _, f := range files {
		r.ids[f.FilePath] = f.ID
	}
	g.mu.Lock()
	g.results = append(g.results, r)
	g.mu.Unlock()
	return won, err
}

// TestIncrementalIndex_race: two indexers (two instances) update the same
// index from A to B at once: one wins; the other writes nothing (its rows
// are never inserted) and is served the winner's index.
func TestIncrementalIndex_race(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := project(t, s)
		w := newWorkTree(t, s, p)
		files := map[string]string{}
		for i := range 20 {
			files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("file %d\n", i)
		}
		w.write(files)
		a := w.push("a")
		if st, err := New(storeOf(s), storetest.Repositories(t, s), nil).Ensure(ctx, p.ID, "main"); err != nil || st.LastCommit != a {
			t.Fatalf("index at A: %+v, %v", st, err)
		}
		before := map[string]int64{}
		var rows []models.RepositoryFile
		if err := s.DB().Where("project_id = ?", p.ID).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			before[r.FilePath] = r.ID
		}
		w.write(map[string]string{"f00.txt": "edited\n", "f01.txt": "", "new.txt": "new\n"})
		b := w.push("b")

		g := &gatedStore{indexStore: storeOf(s), arrived: make(chan struct{}, 2), release: make(chan struct{})}
		var wg sync.WaitGroup
		sts := make([]*models.IndexStatus, 2)
		errs := make([]error, 2)
		for i := range 2 {
			ix := New(g, storetest.Repositories(t, s), nil)
			defer ix.Close()
			wg.Go(func() { sts[i], errs[i] = ix.Ensure(ctx, p.ID, "main") })
		}
		<-g.arrived
		<-g.arrived // both read A and diffed it against B
		close(g.release)
		wg.Wait()
		for i := range 2 {
			if errs[i] != nil || sts[i].LastCommit != b || sts[i].Files != 20 {
				t.Errorf("indexer %d: %+v, %v; want %s with 20 files", i, sts[i], errs[i], b)
			}
		}
		if len(g.results) != 2 {
			t.Fatalf("%d updates, want 2", len(g.results))
		}
		winner, loser := g.results[0], g.results[1]
		if !winner.won {
			winner, loser = loser, winner
		}
		if !winner.won || loser.won || winner.err != nil || loser.err != nil {
			t.Fatalf("updates %+v, %+v; want one won, one lost, no error", winner, loser)
		}
		for path, id := range loser.ids {
			if id != 0 {
				t.Errorf("the loser inserted %s (id %d)", path, id)
			}
		}
		rows = nil
		if err := s.DB().Where("project_id = ?", p.ID).Order("file_path").Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.FilePath)
			want := before[r.FilePath] // unchanged rows are not rewritten
			if id, ok := winner.ids[r.FilePath]; ok {
				want = id
			}
			if r.ID != want || want == 0 {
				t.Errorf("%s: row %d, want %d (the winner's or the old one)", r.FilePath, r.ID, want)
			}
		}
		if len(rows) != 20 || got[0] != "f00.txt" || got[1] != "f02.txt" || got[19] != "new.txt" || rows[0].Content != "edited\n" {
			t.Errorf("rows %v", got)
		}
	})
}
