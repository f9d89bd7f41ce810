package repository

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
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
