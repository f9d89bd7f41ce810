package repository_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// TestImport: every branch and tag of a clone (its own branches, origin's
// remote-tracking ones, lightweight and annotated tags) lands in an empty
// repository, which git then reads as the same history; a repository that
// is not empty, or a directory that is not a repository, is refused and
// nothing changes.
func TestImport(t *testing.T) {
	ctx := context.Background()
	// upstream: main (2 commits), topic, tags; clone: a local branch of its own.
	src := newFixture(t)
	src.commit("one", "2026-09-01T10:00:00Z", map[string]string{"a.txt": "a\n", "bin/x": "\x00\x01"})
	src.commit("two", "2026-09-02T10:00:00Z", map[string]string{"a.txt": "a\nb\n"})
	src.git(src.work, "tag", "v1")
	src.git(src.work, "tag", "-a", "v2", "-m", "Release 2")
	src.git(src.work, "checkout", "-q", "-b", "topic")
	src.commit("topic work", "2026-09-03T10:00:00Z", map[string]string{"t.txt": "t\n"})
	src.push()
	clone := filepath.Join(t.TempDir(), "clone")
	src.git("", "clone", "-q", src.bare, clone)
	src.git(clone, "checkout", "-q", "-b", "local-only", "origin/main")
	src.git(clone, "commit", "-q", "--allow-empty", "-m", "local")

	dst := newFixture(t)
	l := dst.open()
	res, err := l.Import(ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Branches, ","); got != "local-only,main,topic" {
		t.Errorf("branches = %s", got)
	}
	if got := strings.Join(res.Tags, ","); got != "v1,v2" || res.DefaultBranch != "local-only" || res.Objects == 0 {
		t.Errorf("result = %+v", res)
	}
	refs := func(dir string, args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", dir, "for-each-ref", "--format=%(refname:short) %(objectname)"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("for-each-ref: %v\n%s", err, out)
		}
		return string(out)
	}
	if got, want := refs(dst.bare, "refs/tags", "refs/heads/main", "refs/heads/topic"), refs(src.bare, "refs/tags", "refs/heads/main", "refs/heads/topic"); got != want {
		t.Errorf("imported refs:\n%s\nwant:\n%s", got, want)
	}
	if got, want := dst.git("", "rev-parse", "local-only"), src.git(clone, "rev-parse", "local-only"); got != want {
		t.Errorf("local-only = %s, want %s", got, want)
	}
	if got := dst.git("", "symbolic-ref", "HEAD"); got != "refs/heads/local-only" {
		t.Errorf("HEAD = %s", got)
	}
	if got := dst.git("", "log", "--format=%s", "topic"); got != "topic work\ntwo\none" {
		t.Errorf("git log topic = %q", got)
	}
	dst.fsck()
	// glmcp reads it too, afresh.
	if b, err := dst.open().Blob(ctx, "v2", "a.txt", repository.BlobOptions{}); err != nil || string(b.Content) != "a\nb\n" {
		t.Errorf("a.txt at v2 = %+v, %v", b, err)
	}

	before := refs(dst.bare)
	if _, err := dst.open().Import(ctx, clone); !errors.Is(err, models.ErrConflict) {
		t.Errorf("import into a repository with refs = %v, want a conflict", err)
	}
	notRepo := t.TempDir()
	if err := os.WriteFile(filepath.Join(notRepo, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := newFixture(t)
	for _, dir := range []string{notRepo, empty.bare} {
		if _, err := empty.open().Import(ctx, dir); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("import of %s = %v, want invalid input", dir, err)
		}
	}
	if after := refs(dst.bare); after != before {
		t.Errorf("refused imports changed refs:\n%s\n%s", before, after)
	}
}
