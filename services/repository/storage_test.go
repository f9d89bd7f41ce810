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
