package repository

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
)

// A repack between a request's first packed read and its next reads (a
// housekeeping job, a user's git gc) moves loose objects into a new pack
// and deletes the old packs: the request still reads every object.
func TestLocal_readsAcrossConcurrentRepack(t *testing.T) {
	st, dir := hkRepo(t, 12)
	gitOut(t, dir, "repack", "-d", "-q") // an old pack for the first commits
	l, err := st.Open(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// More history as loose objects, after the pack was indexed.
	for i := range 5 {
		if _, err := l.CommitFiles(context.Background(), CommitFilesRequest{Branch: "main", Message: "more",
			Author:  Signature{Name: "A", Email: "a@example.com"},
			Actions: []Action{{Action: ActionUpdate, FilePath: "a.txt", Content: []byte{byte('a' + i)}}}}); err != nil {
			t.Fatal(err)
		}
	}
	all := gitOut(t, dir, "rev-list", "--objects", "--no-object-names", "--all")
	if _, err := l.repo.CommitObject(plumbing.NewHash(gitOut(t, dir, "rev-parse", "main~16"))); err != nil {
		t.Fatal(err) // the old pack is indexed now
	}
	before, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	gitOut(t, dir, "repack", "-a", "-d", "-q")
	gitOut(t, dir, "prune-packed")
	after, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if len(after) != 1 || (len(before) == 1 && before[0] == after[0]) {
		t.Fatalf("repack left packs %v (before %v)", after, before)
	}
	if _, err := os.Stat(before[0]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old pack is still there: %v", err)
	}
	n := 0
	for _, id := range strings.Fields(all) {
		h := plumbing.NewHash(id)
		if _, err := l.repo.Storer.EncodedObject(plumbing.AnyObject, h); err != nil {
			t.Fatalf("object %s after the repack: %v", id, err)
		}
		n++
	}
	// The history walks whole through go-git.
	c, err := l.repo.CommitObject(plumbing.NewHash(gitOut(t, dir, "rev-parse", "main")))
	if err != nil {
		t.Fatal(err)
	}
	walked := 0
	if err := object.NewCommitPreorderIter(c, nil, nil).ForEach(func(*object.Commit) error { walked++; return nil }); err != nil {
		t.Fatal(err)
	}
	if walked != 17 || n == 0 {
		t.Errorf("walked %d commits (want 17), read %d objects", walked, n)
	}
	// An object that is really missing is still reported missing.
	if _, err := l.repo.Storer.EncodedObject(plumbing.AnyObject, plumbing.NewHash("0123456789012345678901234567890123456789")); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("missing object: %v", err)
	}
}

// What a poller sees in the middle of a repack: a pack file whose index
// is not renamed into place yet. go-git cannot open that pack; the read
// goes to git, which can.
func TestLocal_readsBesidePackWithoutIndex(t *testing.T) {
	st, dir := hkRepo(t, 3)
	gitOut(t, dir, "repack", "-a", "-d", "-q")
	gitOut(t, dir, "prune-packed")
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs %v", packs)
	}
	// The same pack under another name, without its .idx, sorted first.
	b, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "objects", "pack", "pack-0000000000000000000000000000000000000000.pack"), b, 0o444); err != nil {
		t.Fatal(err)
	}
	l, err := st.Open(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := l.Commit(context.Background(), "main~2")
	if err != nil {
		t.Fatalf("read beside a pack without index: %v", err)
	}
	if c.ID != gitOut(t, dir, "rev-parse", "main~2") {
		t.Errorf("main~2 = %s", c.ID)
	}
	if _, err := l.Commit(context.Background(), "0123456789012345678901234567890123456789"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a missing commit: %v", err)
	}
}

// go-git hands out objects above 16 KiB unread, to be read later by
// opening their pack again by name; a repack in between deletes it.
// Such objects are read at once (up to 1 MiB) or streamed from git.
func TestLocal_largeObjectsReadAfterTheirPackIsGone(t *testing.T) {
	st, dir := hkRepo(t, 1)
	ctx := context.Background()
	mid := bytes.Repeat([]byte("0123456789abcdef\n"), 4096)    // 68 KiB
	big := bytes.Repeat([]byte("fedcba9876543210\n"), 128<<10) // 2.1 MiB
	l, err := st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.CommitFiles(ctx, CommitFilesRequest{Branch: "main", Message: "big files",
		Author: Signature{Name: "A", Email: "a@example.com"},
		Actions: []Action{{Action: ActionCreate, FilePath: "mid.txt", Content: mid},
			{Action: ActionCreate, FilePath: "big.txt", Content: big}}}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	gitOut(t, dir, "repack", "-a", "-d", "-q")
	gitOut(t, dir, "prune-packed")
	l, err = st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var objs []plumbing.EncodedObject
	for _, p := range []string{"mid.txt", "big.txt"} {
		h := plumbing.NewHash(gitOut(t, dir, "rev-parse", "main:"+p))
		o, err := l.repo.Storer.EncodedObject(plumbing.BlobObject, h)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	// A repack that replaces the pack the objects were found in.
	if _, err := l.CommitFiles(ctx, CommitFilesRequest{Branch: "main", Message: "one more",
		Author:  Signature{Name: "A", Email: "a@example.com"},
		Actions: []Action{{Action: ActionCreate, FilePath: "more.txt", Content: []byte("more\n")}}}); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	gitOut(t, dir, "repack", "-a", "-d", "-q")
	if _, err := os.Stat(before[0]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the pack is still there: %v", err)
	}
	for i, want := range [][]byte{mid, big} {
		r, err := objs[i].Reader()
		if err != nil {
			t.Fatalf("object %d after its pack was deleted: %v", i, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("object %d after its pack was deleted: %d bytes, %v", i, len(got), err)
		}
	}
	// Through the interface, a bounded read of the large file.
	blob, err := l.Blob(ctx, "main", "big.txt", BlobOptions{Lines: 2})
	if err != nil || string(blob.Content) != "fedcba9876543210\nfedcba9876543210\n" || blob.Size != int64(len(big)) {
		t.Fatalf("blob: %v", err)
	}
}

// Many readers and writers on one repository while it is repacked over
// and over: no read ever misses an object.
func TestLocal_readsAndWritesBesideRepackLoop(t *testing.T) {
	st, dir := hkRepo(t, 30)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			branch := fmt.Sprintf("w%d", w)
			for i := 0; ctx.Err() == nil; i++ {
				err := func() error {
					l, err := st.Open(ctx, 7)
					if err != nil {
						return err
					}
					defer l.Close()
					start := ""
					if i == 0 {
						start = "main"
					}
					if _, err := l.CommitFiles(ctx, CommitFilesRequest{Branch: branch, StartBranch: start,
						Message: "w", Author: Signature{Name: "A", Email: "a@example.com"},
						Actions: []Action{{Action: ActionCreate, FilePath: fmt.Sprintf("f%d.txt", i), Content: []byte(branch)}}}); err != nil {
						return fmt.Errorf("commit: %w", err)
					}
					if _, err := l.Compare(ctx, "main", branch, CompareOptions{}); err != nil {
						return fmt.Errorf("compare: %w", err)
					}
					if _, err := l.Tree(ctx, branch, "", TreeOptions{Recursive: true, Limit: 1000}); err != nil {
						return fmt.Errorf("tree: %w", err)
					}
					return nil
				}()
				if err != nil && ctx.Err() == nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
	deadline := time.Now().Add(3 * time.Second)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		gitOut(t, dir, "repack", "-d", "-q")
		gitOut(t, dir, "repack", "--geometric=2", "-d", "-q")
		gitOut(t, dir, "prune-packed")
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if out := gitOut(t, dir, "fsck", "--strict", "--no-progress"); out != "" && !strings.Contains(out, "dangling") {
		t.Errorf("fsck: %s", out)
	}
}

// The crash sweep (run before every housekeeping job) beside go-git's
// object writes: it never removes a temporary object a live writer is
// about to lock and rename (TestMaintain_besideWrites failed on it with
// "rename …/objects/pack/tmp_obj_… → …: no such file or directory").
func TestCleanStale_besideObjectWrites(t *testing.T) {
	st, dir := hkRepo(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	swept := make(chan int)
	go func() {
		n := 0
		for ctx.Err() == nil {
			_, temps := cleanStale(dir)
			n += temps
		}
		swept <- n
	}()
	// A fresh file the sweep finds before its writer locks it is removed
	// (it cannot tell it from a dead writer's): the writer sees that and
	// takes another. What must never happen is a failed write.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := st.Open(ctx, 7)
			if err != nil {
				errs <- err
				return
			}
			defer l.Close()
			for i := range 300 {
				obj := l.st.NewEncodedObject()
				obj.SetType(plumbing.BlobObject)
				wr, _ := obj.Writer()
				fmt.Fprintf(wr, "writer %d object %d\n", w, i)
				wr.Close()
				h, err := l.st.SetEncodedObject(obj)
				if err != nil {
					errs <- fmt.Errorf("write %d/%d beside the sweep: %w", w, i, err)
					return
				}
				if err := l.repo.Storer.HasEncodedObject(h); err != nil {
					errs <- fmt.Errorf("object %s: %w", h, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	t.Logf("the sweep removed %d fresh temporary files", <-swept)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// An abbreviated commit id of a commit in a pack written after go-git
// listed the packs (another process's push, then a repack): git expands
// it.
func TestLocal_shortIDOfCommitInNewPack(t *testing.T) {
	st, dir := hkRepo(t, 2)
	// No background job: the open below would schedule one (the
	// repository has no commit-graph), whose prune-packed empties and
	// removes fan-out directories while the git commit-tree below writes
	// a loose object into one, a race git's own writer retries only once
	// ("unable to create temporary file"). glmcp's writer retries it
	// (doc/repositories.md); this test is about reads.
	st.hk.Close()
	gitOut(t, dir, "repack", "-a", "-d", "-q")
	ctx := context.Background()
	l, err := st.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Commit(ctx, "main~1"); err != nil { // go-git lists the packs now
		t.Fatal(err)
	}
	tree := gitOut(t, dir, "rev-parse", "main^{tree}")
	cmd := exec.Command("git", "--git-dir", dir, "commit-tree", tree, "-p", "main", "-m", "from elsewhere")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=B", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=B", "GIT_COMMITTER_EMAIL=b@example.com")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("git commit-tree: %v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(out))
	gitOut(t, dir, "update-ref", "refs/heads/other", id)
	gitOut(t, dir, "repack", "-a", "-d", "-q")
	gitOut(t, dir, "prune-packed")
	c, err := l.Commit(ctx, id[:10])
	if err != nil || c.ID != id {
		t.Fatalf("commit %s by its short id: %v %v", id[:10], c, err)
	}
	if _, err := l.Commit(ctx, "0123456789"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a short id of nothing: %v", err)
	}
}
