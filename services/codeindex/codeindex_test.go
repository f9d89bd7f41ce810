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
	if err := s.CreateGroup(ctx, g); err != nil {
		tb.Fatal(err)
	}
	p := &models.Project{Name: "p", Path: "p", NamespaceID: g.ID, Visibility: models.VisibilityPublic, DefaultBranch: "main"}
	if err := s.CreateProject(ctx, p); err != nil {
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
		ix := New(s, storetest.Repositories(t, s), nil)
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
			ix := New(s, storetest.Repositories(t, s), nil)
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
	ix := New(s, objectCounting{storetest.Repositories(t, s), &reads}, nil)
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

// TestRefresh: a ref move re-indexes an indexed project in the background.
func TestRefresh(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	p := project(t, s)
	ix := New(s, storetest.Repositories(t, s), nil)
	defer ix.Close()
	ix.Refresh(p.ID) // never searched: nothing to refresh
	ix.bg.Wait()
	if _, err := s.IndexStatus(ctx, p.ID); err == nil {
		t.Fatal("Refresh indexed a project nobody searched")
	}
	if _, err := ix.Ensure(ctx, p.ID, "main"); err != nil {
		t.Fatal(err)
	}
	head := commit(t, s, p.ID, "main", map[string]string{"a.txt": "a\n"})
	ix.Refresh(p.ID)
	ix.bg.Wait()
	if st, err := s.IndexStatus(ctx, p.ID); err != nil || st.LastCommit != head {
		t.Errorf("after Refresh: %+v, %v; want %s", st, err, head)
	}
}

// BenchmarkReindex measures a full re-index of a repository of 2,000
// files of 50 lines (about 3 KB each, 6 MB in all): read the tree at the
// head, replace the project's rows. Results: doc/performance.md.
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
	cmd := exec.Command("git", "--git-dir", storetest.Repositories(b, s).Path(p.ID), "fast-import", "--quiet")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	ix := New(s, storetest.Repositories(b, s), nil)
	defer ix.Close()
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
	b.Run("files=2000/current", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ix.Ensure(ctx, p.ID, "main"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
