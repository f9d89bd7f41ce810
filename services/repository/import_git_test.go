package repository_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// gitIn runs the git command line with a fixed identity and date ("-C
// dir" or "--git-dir dir" are the caller's) and returns its trimmed
// output.
func gitIn(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_DATE=2026-09-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-09-01T10:00:00Z")
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// refsOf lists the refs of the git directory dir under patterns as
// "<name> <object>" lines.
func refsOf(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	out := gitIn(t, "", append([]string{"--git-dir", dir, "for-each-ref", "--format=%(refname) %(objectname)"}, patterns...)...)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// upstream is a work tree with main (HEAD), develop and topic, a
// lightweight and an annotated tag, tags more tags t0000… (1,500: more
// than an argv holds comfortably as refspecs) and a ref that is neither
// branch nor tag (refs/pull/1/head, which a mirror copies and an import
// skips).
func upstream(t *testing.T, tags int) string {
	t.Helper()
	up := filepath.Join(t.TempDir(), "up")
	gitIn(t, "", "init", "-q", "-b", "main", up)
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(up, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(up, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, "", "-C", up, "add", "-A")
		gitIn(t, "", "-C", up, "commit", "-q", "-m", "write "+name)
	}
	write("README.md", "hello\n")
	write("src/app.go", "package app\n")
	gitIn(t, "", "-C", up, "tag", "v1")
	gitIn(t, "", "-C", up, "tag", "-a", "v2", "-m", "Release 2")
	gitIn(t, "", "-C", up, "checkout", "-q", "-b", "develop")
	write("dev.txt", "dev\n")
	gitIn(t, "", "-C", up, "checkout", "-q", "-b", "topic", "main")
	write("topic.txt", "topic\n")
	gitIn(t, "", "-C", up, "update-ref", "refs/pull/1/head", "develop")
	gitIn(t, "", "-C", up, "checkout", "-q", "main")
	head := gitIn(t, "", "-C", up, "rev-parse", "HEAD")
	var b strings.Builder
	for i := range tags {
		fmt.Fprintf(&b, "create refs/tags/t%04d %s\n", i, head)
	}
	if tags > 0 {
		gitIn(t, b.String(), "-C", up, "update-ref", "--stdin")
	}
	return up
}

// TestStageImport_kinds: a bare repository, a mirror, a clone and a
// worktree of that clone (its .git a file) each import whole: exactly
// their branches and tags (a clone's remote-tracking branches where it
// has no local branch of the name; nothing else), 1,500 tags included,
// HEAD on the source's HEAD branch, git fsck clean; nothing stays in the
// staging directory.
func TestStageImport_kinds(t *testing.T) {
	ctx := context.Background()
	up := upstream(t, 1500)
	dir := t.TempDir()
	bare, mirror, clone, wt := filepath.Join(dir, "bare.git"), filepath.Join(dir, "mirror.git"), filepath.Join(dir, "clone"), filepath.Join(dir, "wt")
	gitIn(t, "", "clone", "-q", "--bare", up, bare)
	gitIn(t, "", "clone", "-q", "--mirror", up, mirror)
	gitIn(t, "", "clone", "-q", up, clone)
	// The clone: develop of its own (ahead of origin's), a local-only
	// branch; topic only as origin/topic.
	gitIn(t, "", "-C", clone, "checkout", "-q", "-b", "develop", "origin/develop")
	gitIn(t, "", "-C", clone, "commit", "-q", "--allow-empty", "-m", "local develop")
	gitIn(t, "", "-C", clone, "checkout", "-q", "-b", "local-only", "main")
	gitIn(t, "", "-C", clone, "commit", "-q", "--allow-empty", "-m", "local only")
	gitIn(t, "", "-C", clone, "checkout", "-q", "main")
	gitIn(t, "", "-C", clone, "worktree", "add", "-q", "-b", "wt-branch", wt, "develop")
	if refs := refsOf(t, mirror, "refs/pull"); len(refs) != 1 {
		t.Fatalf("the mirror has pull refs %q, want one", refs)
	}

	upRefs := refsOf(t, filepath.Join(up, ".git"), "refs/heads", "refs/tags")
	cloneRefs := refsOf(t, filepath.Join(clone, ".git"), "refs/heads", "refs/tags")
	// origin/topic becomes topic; origin/develop and origin/main lose to
	// the local branches; origin/HEAD is a symbolic ref.
	cloneRefs = append(cloneRefs, "refs/heads/topic "+gitIn(t, "", "-C", clone, "rev-parse", "origin/topic"))
	sort.Strings(cloneRefs)
	for _, tc := range []struct {
		name, dir, head string
		want            []string
	}{
		{"bare", bare, "main", upRefs},
		{"mirror", mirror, "main", upRefs},
		{"clone", clone, "main", cloneRefs},
		{"worktree", wt, "wt-branch", cloneRefs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := repository.OpenStorage(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			// Background housekeeping stops before the directory goes.
			t.Cleanup(func() { st.Close() })
			staged, err := st.StageImport(ctx, tc.dir, repository.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Exists(7) {
				t.Fatal("a staged import is in @hashed already")
			}
			if err := staged.Install(ctx, 7); err != nil {
				t.Fatal(err)
			}
			if err := staged.Commit(); err != nil {
				t.Fatal(err)
			}
			got := refsOf(t, st.Path(7))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("imported refs (%d):\n%s\nwant (%d):\n%s", len(got), strings.Join(got, "\n"), len(tc.want), strings.Join(tc.want, "\n"))
			}
			res := staged.Result
			if res.DefaultBranch != tc.head || len(res.Tags) != 1502 || res.Objects == 0 {
				t.Errorf("result: default %q (want %q), %d tags, %d objects", res.DefaultBranch, tc.head, len(res.Tags), res.Objects)
			}
			if head := gitIn(t, "", "--git-dir", st.Path(7), "symbolic-ref", "HEAD"); head != "refs/heads/"+tc.head {
				t.Errorf("HEAD = %s", head)
			}
			gitIn(t, "", "--git-dir", st.Path(7), "fsck", "--strict", "--no-dangling")
			if got := gitIn(t, "", "--git-dir", st.Path(7), "cat-file", "-t", "v2"); got != "tag" {
				t.Errorf("v2 is a %s, want an annotated tag", got)
			}
			assertNoStaging(t, st)
			// glmcp reads it as well.
			l, err := st.Open(ctx, 7)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if b, err := l.Blob(ctx, "v2", "src/app.go", repository.BlobOptions{}); err != nil || string(b.Content) != "package app\n" {
				t.Errorf("src/app.go at v2 = %+v, %v", b, err)
			}
		})
	}

	// Local.Import of a bare repository (refused as "not a git
	// repository" before git ran the copy).
	dst := newFixture(t)
	res, err := dst.open().Import(ctx, bare)
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(t, dst.bare); strings.Join(got, "\n") != strings.Join(upRefs, "\n") || res.DefaultBranch != "main" {
		t.Errorf("Local.Import of a bare repository: %d refs, default %q", len(got), res.DefaultBranch)
	}
}

// assertNoStaging fails when the staging directory of st holds anything.
func assertNoStaging(t *testing.T, st *repository.Storage) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(st.Root(), repository.StagingDir))
	for _, e := range entries {
		t.Errorf("left in the staging directory: %s", e.Name())
	}
}

// TestStageImport_defaultBranch: a source whose HEAD is detached gets
// main, else master, else its first branch.
func TestStageImport_defaultBranch(t *testing.T) {
	ctx := context.Background()
	up := upstream(t, 0)
	for _, tc := range []struct {
		branches []string
		want     string
	}{
		{[]string{"zeta", "main", "master"}, "main"},
		{[]string{"zeta", "master"}, "master"},
		{[]string{"zeta", "beta"}, "beta"},
	} {
		src := filepath.Join(t.TempDir(), "src.git")
		gitIn(t, "", "init", "-q", "--bare", src)
		sha := gitIn(t, "", "-C", up, "rev-parse", "HEAD")
		gitIn(t, "", "-C", up, "push", "-q", src, "HEAD:refs/heads/"+tc.branches[0])
		for _, b := range tc.branches[1:] {
			gitIn(t, "", "--git-dir", src, "update-ref", "refs/heads/"+b, sha)
		}
		gitIn(t, "", "--git-dir", src, "update-ref", "--no-deref", "HEAD", sha)
		st, err := repository.OpenStorage(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		// Background housekeeping stops before the directory goes.
		t.Cleanup(func() { st.Close() })
		staged, err := st.StageImport(ctx, src, repository.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if staged.Result.DefaultBranch != tc.want {
			t.Errorf("branches %v, detached HEAD: default %q, want %q", tc.branches, staged.Result.DefaultBranch, tc.want)
		}
		if err := staged.Discard(); err != nil {
			t.Fatal(err)
		}
		assertNoStaging(t, st)
	}
}

// TestStageImport_failures: a missing directory, one that is no
// repository, a repository without refs and one whose fetch fails (an
// object is missing) are refused and leave nothing: no repository, no
// staging.
func TestStageImport_failures(t *testing.T) {
	ctx := context.Background()
	notRepo := t.TempDir()
	if err := os.WriteFile(filepath.Join(notRepo, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.git")
	gitIn(t, "", "init", "-q", "--bare", empty)
	broken := filepath.Join(t.TempDir(), "broken")
	gitIn(t, "", "init", "-q", "-b", "main", broken)
	if err := os.WriteFile(filepath.Join(broken, "f.txt"), []byte("lost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, "", "-C", broken, "add", "f.txt")
	gitIn(t, "", "-C", broken, "commit", "-q", "-m", "one")
	blob := gitIn(t, "", "-C", broken, "rev-parse", "HEAD:f.txt")
	if err := os.Remove(filepath.Join(broken, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	st, err := repository.OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Background housekeeping stops before the directory goes.
	t.Cleanup(func() { st.Close() })
	for _, tc := range []struct {
		name, dir string
		invalid   bool
		text      string
	}{
		{"missing", filepath.Join(notRepo, "missing"), true, "not a directory"},
		{"not a repository", notRepo, true, "not a git repository"},
		{"no refs", empty, true, "no branches or tags"},
		{"option-like", "-x", true, "not a directory"},
		{"missing object", broken, false, "git pack-objects"},
	} {
		staged, err := st.StageImport(ctx, tc.dir, repository.ImportOptions{})
		if err == nil {
			staged.Discard()
			t.Errorf("%s: imported", tc.name)
			continue
		}
		if errors.Is(err, models.ErrInvalidInput) != tc.invalid || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v (invalid input: %v), want %q", tc.name, err, errors.Is(err, models.ErrInvalidInput), tc.text)
		}
		assertNoStaging(t, st)
	}
	if entries, _ := os.ReadDir(filepath.Join(st.Root(), "@hashed")); len(entries) != 0 {
		t.Errorf("failed imports left %d entries in @hashed", len(entries))
	}
}

// TestStageImport_install: an import installed over an empty repository
// and discarded puts the empty one back; one over a repository with
// history is refused; a leftover of a dead import (its lock free) is
// swept while a live one (its lock held) is not.
func TestStageImport_install(t *testing.T) {
	ctx := context.Background()
	up := upstream(t, 0)
	st, err := repository.OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Background housekeeping stops before the directory goes.
	t.Cleanup(func() { st.Close() })
	if err := st.Create(ctx, 7, "trunk"); err != nil {
		t.Fatal(err)
	}
	staged, err := st.StageImport(ctx, up, repository.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := staged.Install(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if refs := refsOf(t, st.Path(7), "refs/heads"); len(refs) != 3 {
		t.Fatalf("installed: branches %q", refs)
	}
	if err := staged.Discard(); err != nil {
		t.Fatal(err)
	}
	if refs := refsOf(t, st.Path(7)); len(refs) != 0 {
		t.Errorf("discarded install left refs %q", refs)
	}
	if head := gitIn(t, "", "--git-dir", st.Path(7), "symbolic-ref", "HEAD"); head != "refs/heads/trunk" {
		t.Errorf("the empty repository put back has HEAD %s", head)
	}
	assertNoStaging(t, st)

	// Into the empty repository for good, then once more: refused.
	for i, want := range []error{nil, models.ErrConflict} {
		staged, err := st.StageImport(ctx, up, repository.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		err = staged.Install(ctx, 7)
		if !errors.Is(err, want) && err != want {
			t.Errorf("install %d: %v, want %v", i, err, want)
		}
		if err == nil {
			if err := staged.Commit(); err != nil {
				t.Fatal(err)
			}
		} else if err := staged.Discard(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := refsOf(t, st.Path(7)), refsOf(t, filepath.Join(up, ".git"), "refs/heads", "refs/tags"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("refs after a refused second install: %d, want %d", len(got), len(want))
	}
	assertNoStaging(t, st)

	// A dead import's leftover: a staged repository and a lock nobody
	// holds; a live one's lock is held.
	live, err := st.StageImport(ctx, up, repository.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	tmp := filepath.Join(st.Root(), repository.StagingDir)
	gitIn(t, "", "init", "-q", "--bare", filepath.Join(tmp, "import-dead.git"))
	if err := os.WriteFile(filepath.Join(tmp, "import-dead.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, "", "init", "-q", "--bare", filepath.Join(tmp, "import-nolock.git"))
	if n := st.SweepStaging(); n != 2 {
		t.Errorf("swept %d, want 2", n)
	}
	entries, _ := os.ReadDir(tmp)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !strings.HasSuffix(names[0], ".git") || !strings.HasSuffix(names[1], ".lock") ||
		slices.ContainsFunc(names, func(n string) bool {
			return strings.HasPrefix(n, "import-dead.") || strings.HasPrefix(n, "import-nolock.")
		}) {
		t.Errorf("after the sweep: %q, want the live import's repository and lock", names)
	}
	if err := live.Discard(); err != nil {
		t.Fatal(err)
	}
	assertNoStaging(t, st)
}
