package codeindex

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// project creates a project (and its empty repository) in s.
func project(tb testing.TB, s *store.Store) *models.Project {
	tb.Helper()
	ctx := context.Background()
	g := &models.Group{Name: "g", Path: "g", Visibility: models.VisibilityPublic}
	if err := s.Groups.CreateGroup(ctx, g); err != nil {
		tb.Fatal(err)
	}
	p := &models.Project{Name: "p", Path: "p", NamespaceID: g.ID, Visibility: models.VisibilityPublic, DefaultBranch: "main"}
	if err := s.Projects.CreateProject(ctx, p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// commit commits files (path → content; "" deletes) on branch.
func commit(tb testing.TB, s *store.Store, projectID int64, branch string, files map[string]string) string {
	tb.Helper()
	ctx := context.Background()
	repo, err := storetest.Repositories(tb, s).Repository(ctx, projectID)
	if err != nil {
		tb.Fatal(err)
	}
	defer repo.Close()
	var actions []repository.Action
	for p, c := range files {
		a := repository.Action{Action: repository.ActionCreate, FilePath: p, Content: []byte(c), HasContent: true}
		if _, err := repo.Blob(ctx, branch, p, repository.BlobOptions{MaxBytes: 1}); err == nil {
			a.Action = repository.ActionUpdate
		}
		if c == "" {
			a = repository.Action{Action: repository.ActionDelete, FilePath: p}
		}
		actions = append(actions, a)
	}
	start := ""
	if _, err := repo.Commit(ctx, "refs/heads/"+branch); err != nil {
		start = "main"
	}
	if _, err := repo.Commit(ctx, "refs/heads/main"); err != nil {
		start = ""
	}
	sig := repository.Signature{Name: "A", Email: "a@example.com"}
	c, err := repo.CommitFiles(ctx, repository.CommitFilesRequest{Branch: branch, StartBranch: start, Message: "m", Author: sig, Actions: actions})
	if err != nil {
		tb.Fatal(err)
	}
	return c.ID
}

func paths(tb testing.TB, s *store.Store, projectID int64) string {
	tb.Helper()
	var out []string
	if err := s.DB().Model(&models.RepositoryFile{}).Where("project_id = ?", projectID).Order("file_path").Pluck("file_path", &out).Error; err != nil {
		tb.Fatal(err)
	}
	return strings.Join(out, ",")
}

func TestEnsure(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := project(t, s)
		ix := New(storeOf(s), storetest.Repositories(t, s), nil)
		defer ix.Close()

		// An empty repository: an empty index.
		st, err := ix.Ensure(ctx, p.ID, "main")
		if err != nil || st.LastCommit != "" || st.Files != 0 {
			t.Fatalf("empty repository: %+v, %v", st, err)
		}
		head := commit(t, s, p.ID, "main", map[string]string{
			"README.md":  "hello\n",
			"src/a.go":   "package a\n",
			"logo.png":   "\x89PNG\x00\x00",
			"latin1.txt": "caf\xe9\n",
			"big.txt":    strings.Repeat("x", MaxFileBytes+1),
		})
		st, err = ix.Ensure(ctx, p.ID, "main")
		if err != nil || st.LastCommit != head || st.Ref != "main" || st.Files != 2 {
			t.Fatalf("after a commit: %+v, %v; want %s with 2 files", st, err, head)
		}
		if got := paths(t, s, p.ID); got != "README.md,src/a.go" {
			t.Errorf("indexed %s, want the text files only", got)
		}
		// Current: nothing is rewritten.
		again, err := ix.Ensure(ctx, p.ID, "main")
		if err != nil || !again.IndexedAt.Equal(st.IndexedAt) {
			t.Errorf("a current index was rebuilt: %+v, %v", again, err)
		}
		// Another branch moving changes nothing; the default branch moving
		// (a file deleted) does.
		commit(t, s, p.ID, "topic", map[string]string{"topic.txt": "t\n"})
		if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.LastCommit != head {
			t.Errorf("after a commit to another branch: %+v, %v", st, err)
		}
		head = commit(t, s, p.ID, "main", map[string]string{"src/a.go": ""})
		if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.LastCommit != head || paths(t, s, p.ID) != "README.md" {
			t.Errorf("after a delete: %+v, %v, %s", st, err, paths(t, s, p.ID))
		}
		// Another default branch is another index.
		if st, err := ix.Ensure(ctx, p.ID, "topic"); err != nil || st.Ref != "topic" || paths(t, s, p.ID) != "README.md,src/a.go,topic.txt" {
			t.Errorf("topic: %+v, %v, %s", st, err, paths(t, s, p.ID))
		}
	})
}

// TestEnsure_concurrent re-indexes from several indexers at once (as
// several instances would): every call succeeds, and the index is whole.
func TestEnsure_concurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := project(t, s)
		files := map[string]string{}
		for i := range 50 {
			files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("file %d\n", i)
		}
		head := commit(t, s, p.ID, "main", files)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 4 {
			ix := New(storeOf(s), storetest.Repositories(t, s), nil)
			defer ix.Close()
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					st, err := ix.Ensure(ctx, p.ID, "main")
					if err == nil && (st.LastCommit != head || st.Files != 50) {
						err = fmt.Errorf("status %+v", st)
					}
					errs <- err
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if n := strings.Count(paths(t, s, p.ID), ",") + 1; n != 50 {
			t.Errorf("%d rows, want 50", n)
		}
	})
}

// objectCounting opens repositories that count the calls that read
// objects: Commit (decodes a commit) and Files (reads a tree).
type objectCounting struct {
	Repositories
	reads *atomic.Int64
}

func (o objectCounting) Repository(ctx context.Context, projectID int64) (repository.Repository, error) {
	r, err := o.Repositories.Repository(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return objectCountingRepo{r, o.reads}, nil
}

type objectCountingRepo struct {
	repository.Repository
	reads *atomic.Int64
}

func (o objectCountingRepo) Commit(ctx context.Context, rev string) (*repository.Commit, error) {
	o.reads.Add(1)
	return o.Repository.Commit(ctx, rev)
}

func (o objectCountingRepo) Files(ctx context.Context, rev string, opt repository.FilesOptions, fn func(*repository.File) error) (string, error) {
	o.reads.Add(1)
	return o.Repository.Files(ctx, rev, opt, fn)
}

// TestEnsure_currentReadsNoObject: a search of a current index checks the
// branch's ref only; it decodes no commit and reads no tree.
func TestEnsure_currentReadsNoObject(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	p := project(t, s)
	head := commit(t, s, p.ID, "main", map[string]string{"a.txt": "a\n"})
	var reads atomic.Int64
	ix := New(storeOf(s), objectCounting{storetest.Repositories(t, s), &reads}, nil)
	defer ix.Close()
	if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.LastCommit != head {
		t.Fatalf("first search: %+v, %v", st, err)
	}
	reads.Store(0)
	for range 3 {
		if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.LastCommit != head {
			t.Fatalf("search of a current index: %+v, %v", st, err)
		}
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("3 searches of a current index read objects %d times, want 0", n)
	}
}

// projects creates n projects (and their empty repositories) in one group.
func projects(tb testing.TB, s *store.Store, n int) []*models.Project {
	tb.Helper()
	ctx := context.Background()
	g := &models.Group{Name: "many", Path: "many", Visibility: models.VisibilityPublic}
	if err := s.Groups.CreateGroup(ctx, g); err != nil {
		tb.Fatal(err)
	}
	out := make([]*models.Project, n)
	for i := range out {
		out[i] = &models.Project{Name: fmt.Sprintf("p%d", i), Path: fmt.Sprintf("p%d", i), NamespaceID: g.ID,
			Visibility: models.VisibilityPublic, DefaultBranch: "main"}
		if err := s.Projects.CreateProject(ctx, out[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// reindexCount counts re-indexes through an Indexer's reindexing hook:
// in all, and the most running at once.
type reindexCount struct {
	mu                   sync.Mutex
	running, most, total int
}

// hook counts a re-index that takes d.
func (c *reindexCount) hook(d time.Duration) func(int64) {
	return func(int64) {
		c.mu.Lock()
		c.running++
		c.total++
		c.most = max(c.most, c.running)
		c.mu.Unlock()
		time.Sleep(d)
		c.mu.Lock()
		c.running--
		c.mu.Unlock()
	}
}

// TestEnsure_reindexesLimited: searches of many projects whose heads moved
// (and background refreshes among them) re-index at most maxReindexes
// projects at once in the process; every one ends current.
func TestEnsure_reindexesLimited(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	ps := projects(t, s, 8)
	ix := New(storeOf(s), storetest.Repositories(t, s), nil)
	defer ix.Close()
	heads := make([]string, len(ps))
	for i, p := range ps {
		commit(t, s, p.ID, "main", map[string]string{"a.txt": "one\n"})
		if _, err := ix.Ensure(ctx, p.ID, "main"); err != nil {
			t.Fatal(err)
		}
		heads[i] = commit(t, s, p.ID, "main", map[string]string{"a.txt": "two\n", fmt.Sprintf("f%d.txt", i): "f\n"})
	}
	var count reindexCount
	ix.reindexing = count.hook(50 * time.Millisecond)
	var wg sync.WaitGroup
	errs := make([]error, len(ps))
	for i, p := range ps {
		if i >= 6 { // moved by glmcp: refreshed in the background
			ix.Refresh(p.ID)
			continue
		}
		wg.Go(func() {
			st, err := ix.Ensure(ctx, p.ID, "main")
			if err == nil && st.LastCommit != heads[i] {
				err = fmt.Errorf("status %+v, want %s", st, heads[i])
			}
			errs[i] = err
		})
	}
	wg.Wait()
	ix.bg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("search of project %d: %v", i, err)
		}
	}
	for i, p := range ps {
		if st, err := s.CodeIndex.IndexStatus(ctx, p.ID); err != nil || st.LastCommit != heads[i] {
			t.Errorf("project %d: %+v, %v; want %s", i, st, err, heads[i])
		}
	}
	if count.total != len(ps) || count.most != maxReindexes {
		t.Errorf("%d re-indexes, at most %d at once; want %d, at most %d", count.total, count.most, len(ps), maxReindexes)
	}
}

// TestEnsure_slotsBusy: with every re-index slot held, a search of a
// project indexed at an older head waits staleWait and is served that
// index; a search of a project never indexed waits for a slot, as does a
// background refresh; once the slots free, both re-index.
func TestEnsure_slotsBusy(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	ps := projects(t, s, 4)
	held, stale, never := ps[:2], ps[2], ps[3]
	ix := New(storeOf(s), storetest.Repositories(t, s), nil)
	defer ix.Close()
	ix.staleWait = 200 * time.Millisecond
	for _, p := range ps[:3] {
		commit(t, s, p.ID, "main", map[string]string{"a.txt": "one\n"})
		if _, err := ix.Ensure(ctx, p.ID, "main"); err != nil {
			t.Fatal(err)
		}
	}
	old, err := s.CodeIndex.IndexStatus(ctx, stale.ID)
	if err != nil {
		t.Fatal(err)
	}
	heads := map[int64]string{}
	for _, p := range ps {
		heads[p.ID] = commit(t, s, p.ID, "main", map[string]string{"a.txt": "two\n"})
	}

	entered, release := make(chan int64, len(held)), make(chan struct{})
	ix.reindexing = func(id int64) {
		if id == held[0].ID || id == held[1].ID {
			entered <- id
			<-release
		}
	}
	var wg sync.WaitGroup
	for _, p := range held {
		wg.Go(func() {
			if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.LastCommit != heads[p.ID] {
				t.Errorf("held search: %+v, %v", st, err)
			}
		})
	}
	<-entered
	<-entered // both slots held

	began := time.Now()
	st, err := ix.Ensure(ctx, stale.ID, "main")
	if waited := time.Since(began); err != nil || st.LastCommit != old.LastCommit || waited < ix.staleWait {
		t.Errorf("search with the slots busy: %+v, %v after %v; want the index at %s after %v", st, err, waited, old.LastCommit, ix.staleWait)
	}
	done := make(chan *models.IndexStatus, 1)
	wg.Go(func() {
		st, err := ix.Ensure(ctx, never.ID, "main")
		if err != nil {
			t.Errorf("search of a project never indexed: %v", err)
		}
		done <- st
	})
	ix.Refresh(stale.ID)
	select {
	case st := <-done:
		t.Fatalf("a project never indexed was served with the slots busy: %+v", st)
	case <-time.After(4 * ix.staleWait):
	}
	if st, err := s.CodeIndex.IndexStatus(ctx, stale.ID); err != nil || st.LastCommit != old.LastCommit {
		t.Errorf("refreshed with the slots busy: %+v, %v", st, err)
	}

	close(release)
	if st := <-done; st == nil || st.LastCommit != heads[never.ID] {
		t.Errorf("project never indexed, once a slot freed: %+v; want %s", st, heads[never.ID])
	}
	wg.Wait()
	ix.bg.Wait()
	if st, err := s.CodeIndex.IndexStatus(ctx, stale.ID); err != nil || st.LastCommit != heads[stale.ID] {
		t.Errorf("refresh once a slot freed: %+v, %v; want %s", st, err, heads[stale.ID])
	}
}

// TestRefresh: a ref move re-indexes an indexed project in the background.
func TestRefresh(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	p := project(t, s)
	ix := New(storeOf(s), storetest.Repositories(t, s), nil)
	defer ix.Close()
	ix.Refresh(p.ID) // never searched: nothing to refresh
	ix.bg.Wait()
	if _, err := s.CodeIndex.IndexStatus(ctx, p.ID); err == nil {
		t.Fatal("Refresh indexed a project nobody searched")
	}
	if _, err := ix.Ensure(ctx, p.ID, "main"); err != nil {
		t.Fatal(err)
	}
	head := commit(t, s, p.ID, "main", map[string]string{"a.txt": "a\n"})
	ix.Refresh(p.ID)
	ix.bg.Wait()
	if st, err := s.CodeIndex.IndexStatus(ctx, p.ID); err != nil || st.LastCommit != head {
		t.Errorf("after Refresh: %+v, %v; want %s", st, err, head)
	}
}

// BenchmarkReindex measures re-indexes of a repository of 2,000 files of
// 50 lines (about 3 KB each, 6 MB in all): the first index (read the tree
// at the head, write every row), and the re-index after a push that
// changed one file, full (read the whole tree, rewrite every row) and
// incremental (diff the trees, rewrite one row). Results:
// doc/performance.md.
func BenchmarkReindex(b *testing.B) {
	s := storetest.Open(b)
	ctx := context.Background()
	p := project(b, s)
	var stream bytes.Buffer
	fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter A <a@example.com> 1767225600 +0000\ndata 4\ninit\n")
	var content strings.Builder
	for i := range 50 {
		fmt.Fprintf(&content, "line %d of a source file, with words like index%d to search;\n", i+1, i)
	}
	for i := range 2000 {
		body := fmt.Sprintf("// file %d\n%s", i, content.String())
		fmt.Fprintf(&stream, "M 100644 inline dir%03d/file%05d.go\ndata %d\n%s\n", i/100, i, len(body), body)
	}
	// The push: file 1,000 edited, on refs/heads/pushed.
	edited := fmt.Sprintf("// file 1000, edited\n%s", content.String())
	fmt.Fprintf(&stream, "commit refs/heads/pushed\ncommitter A <a@example.com> 1767225660 +0000\ndata 5\npush\nfrom refs/heads/main\n"+
		"M 100644 inline dir010/file01000.go\ndata %d\n%s\n", len(edited), edited)
	gitDir := storetest.Repositories(b, s).Path(p.ID)
	cmd := exec.Command("git", "--git-dir", gitDir, "fast-import", "--quiet")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	rev := func(name string) string {
		out, err := exec.Command("git", "--git-dir", gitDir, "rev-parse", name).Output()
		if err != nil {
			b.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	commits := [2]string{rev("refs/heads/main"), rev("refs/heads/pushed")}
	ix := New(storeOf(s), storetest.Repositories(b, s), nil)
	defer ix.Close()
	// push moves main from one of commits to the other, off the clock.
	push := func(b *testing.B, i int) string {
		b.StopTimer()
		defer b.StartTimer()
		to, from := commits[(i+1)%2], commits[i%2]
		if out, err := exec.Command("git", "--git-dir", gitDir, "update-ref", "refs/heads/main", to, from).CombinedOutput(); err != nil {
			b.Fatalf("update-ref: %v\n%s", err, out)
		}
		return to
	}
	pushed := func(full bool) func(b *testing.B) {
		return func(b *testing.B) {
			ix.fullOnly = full
			defer func() { ix.fullOnly = false }()
			var incremental []bool
			ix.reindexed = func(_ int64, inc bool) { incremental = append(incremental, inc) }
			defer func() { ix.reindexed = nil }()
			if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.Files != 2000 { // current at main
				b.Fatalf("%+v, %v", st, err)
			}
			head := rev("refs/heads/main")
			i := 0
			if head != commits[0] {
				i = 1
			}
			incremental = nil
			b.ReportAllocs()
			for b.Loop() {
				head := push(b, i)
				i++
				if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.Files != 2000 || st.LastCommit != head {
					b.Fatalf("%+v, %v; want %s", st, err, head)
				}
			}
			for _, inc := range incremental {
				if inc == full {
					b.Fatalf("re-indexes incremental %v, want %v", incremental, !full)
				}
			}
		}
	}
	b.Run("files=2000/reindex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := s.DB().Exec("DELETE FROM index_statuses").Error; err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if st, err := ix.Ensure(ctx, p.ID, "main"); err != nil || st.Files != 2000 {
				b.Fatalf("%+v, %v", st, err)
			}
		}
	})
	b.Run("files=2000/push=1/full", pushed(true))
	b.Run("files=2000/push=1/incremental", pushed(false))
	b.Run("files=2000/current", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ix.Ensure(ctx, p.ID, "main"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// statusCounting counts the IndexStatus reads under way at once.
type statusCounting struct {
	Store
	now, most atomic.Int64
}

func (c *statusCounting) IndexStatus(ctx context.Context, projectID int64) (*models.IndexStatus, error) {
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for {
		m := c.most.Load()
		if n <= m || c.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond) // a read that takes a moment
	return c.Store.IndexStatus(ctx, projectID)
}

// TestRefresh_bounded: refreshes of many moved projects (an import) read
// their status a few at a time, not all at once.
func TestRefresh_bounded(t *testing.T) {
	s := storetest.OpenSQLite(t)
	ps := projects(t, s, 40)
	c := &statusCounting{Store: storeOf(s)}
	ix := New(c, storetest.Repositories(t, s), nil)
	defer ix.Close()
	for _, p := range ps {
		ix.Refresh(p.ID)
	}
	ix.bg.Wait()
	if most := c.most.Load(); most > maxRefreshes || most == 0 {
		t.Errorf("%d status reads at once, want 1 to %d", most, maxRefreshes)
	}
}

// indexStore is Store over a store's families.
type indexStore struct {
	*store.CodeIndex
	*store.Projects
}

func storeOf(s *store.Store) indexStore { return indexStore{s.CodeIndex, s.Projects} }
