package repository_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

func TestHashedPath(t *testing.T) {
	// GitLab's Storage::Hashed: SHA-256 of the decimal id.
	got := repository.HashedPath(1)
	want := "@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git"
	if got != want {
		t.Fatalf("HashedPath(1) = %s, want %s", got, want)
	}
}

func TestOpenStorageChecksTheDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "does not exist"},
		{file, "is not a directory"},
		{"", "empty"},
	} {
		_, err := repository.OpenStorage(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OpenStorage(%q) = %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if _, err := repository.OpenStorage(ro); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("OpenStorage(read-only) = %v, want not writable", err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 2 {
		t.Errorf("the write check left files behind: %v", entries)
	}
}

func TestCreateMakesABareRepositoryGitReads(t *testing.T) {
	f := newFixture(t)
	if !strings.HasSuffix(filepath.ToSlash(f.bare), repository.HashedPath(42)) {
		t.Fatalf("repository at %s, want the hashed path", f.bare)
	}
	if got := f.git("", "rev-parse", "--is-bare-repository"); got != "true" {
		t.Fatalf("is-bare-repository = %s", got)
	}
	if got := f.git("", "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Fatalf("HEAD = %s", got)
	}
	f.fsck()
	// Creating again (a rolled-back project's leftover) is fine while empty…
	ctx := context.Background()
	if err := f.storage.Create(ctx, f.id, "main"); err != nil {
		t.Fatalf("re-create empty: %v", err)
	}
	f.commit("first", "", map[string]string{"a.txt": "a\n"})
	f.push()
	// …and a conflict once it has history.
	if err := f.storage.Create(ctx, f.id, "main"); !errors.Is(err, models.ErrConflict) {
		t.Fatalf("re-create with history = %v, want ErrConflict", err)
	}
	if _, err := f.storage.Open(ctx, 7); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("Open(no repository) = %v, want ErrNotFound", err)
	}
	if err := f.storage.Create(ctx, 8, "bad..name"); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("Create(bad branch) = %v, want ErrInvalidInput", err)
	}
	if err := f.storage.Remove(f.id); err != nil || f.storage.Exists(f.id) {
		t.Fatalf("Remove: %v, exists %v", err, f.storage.Exists(f.id))
	}
}

func TestAPushWithGitIsSeenOnTheNextOpen(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first := f.commit("first", "", map[string]string{"a.txt": "one\n"})
	f.push()
	l := f.open()
	b, err := l.Blob(ctx, "main", "a.txt", repository.BlobOptions{})
	if err != nil || string(b.Content) != "one\n" || b.CommitID != first {
		t.Fatalf("Blob = %+v, %v", b, err)
	}
	l.Close()
	// An idle repository is reused while its packs are unchanged…
	if again := f.open(); again != l {
		t.Fatal("an unchanged repository was opened afresh")
	} else {
		again.Close()
	}
	// Enough objects that git push sends a pack (above unpackLimit) too.
	files := map[string]string{"a.txt": "two\n"}
	for i := range 150 {
		files[filepath.Join("many", strings.Repeat("x", i%7+1)+string(rune('a'+i%26))+".txt")] = strings.Repeat("line\n", i+1)
	}
	second := f.commit("second", "", files)
	f.git(f.work, "branch", "feature")
	f.push()
	if len(f.git("", "count-objects", "-v")) == 0 || !strings.Contains(f.git("", "count-objects", "-v"), "packs: 1") {
		t.Fatalf("the push sent no pack: %s", f.git("", "count-objects", "-v"))
	}
	// …and not once a push added a pack.
	l = f.open()
	b, err = l.Blob(ctx, "main", "a.txt", repository.BlobOptions{})
	if err != nil || string(b.Content) != "two\n" || b.CommitID != second {
		t.Fatalf("after push Blob = %+v, %v", b, err)
	}
	branches, err := l.Branches(ctx)
	if err != nil || len(branches) != 2 || branches[0].Name != "feature" || branches[1].Commit.ID != second {
		t.Fatalf("Branches = %+v, %v", branches, err)
	}
	l.Close()
	// gc packs every object and ref anew; a reused repository still reads them.
	f.git("", "gc", "-q", "--prune=now")
	f.git(f.work, "branch", "later")
	f.push()
	l = f.open()
	defer l.Close()
	if b, err := l.Blob(ctx, "later", "many/xa.txt", repository.BlobOptions{}); err != nil || b.Size == 0 {
		t.Fatalf("Blob after gc = %v, %v", b, err)
	}
	if branches, err := l.Branches(ctx); err != nil || len(branches) != 3 {
		t.Fatalf("Branches after gc = %+v, %v", branches, err)
	}
}
