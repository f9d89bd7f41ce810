package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// git runs the git command line in dir (or, with "--git-dir", anywhere)
// with a fixed identity and returns its trimmed output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Erin", "GIT_AUTHOR_EMAIL=erin@example.com",
		"GIT_COMMITTER_NAME=Erin", "GIT_COMMITTER_EMAIL=erin@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_DATE=2026-09-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-09-01T10:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// sourceRepository makes a work tree with two branches (HEAD on develop),
// a lightweight and an annotated tag.
func sourceRepository(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	git(t, "", "init", "-q", "-b", "develop", dir)
	for i, f := range []string{"README.md", "src/app.go"} {
		full := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(strconv.Itoa(i)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "add "+f)
	}
	git(t, dir, "tag", "v1")
	git(t, dir, "tag", "-a", "v2", "-m", "Release 2")
	git(t, dir, "checkout", "-q", "-b", "feature")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "feature work")
	git(t, dir, "checkout", "-q", "develop")
	return dir
}

// Ensure projects import copies every branch and tag into a new project
// (or an existing empty one), readable by git and by glmcp, with the
// source's HEAD as default branch; and that refused imports change
// nothing.
func TestProjects_import(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		src := sourceRepository(t)
		refs := func(gitDir string) string {
			return git(t, "", "--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)")
		}
		out := b.mustRun(t, "projects", "import", "--path", "acme/imported", "--from", src, "--visibility", "internal")
		id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil {
			t.Fatalf("stdout = %q, want the project id", out)
		}
		s := b.store(t)
		p := mustProject(t, b, "acme/imported")
		if p.ID != id || p.DefaultBranch != "develop" || p.Visibility != models.VisibilityInternal {
			t.Errorf("project = %+v, want id %d, default branch develop", p, id)
		}
		gitDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(id)))
		if got, want := refs(gitDir), refs(filepath.Join(src, ".git")); got != want {
			t.Errorf("imported refs:\n%s\nwant:\n%s", got, want)
		}
		if got := git(t, "", "--git-dir", gitDir, "log", "--format=%s", "feature"); got != "feature work\nadd src/app.go\nadd README.md" {
			t.Errorf("git log feature = %q", got)
		}
		if got := git(t, "", "--git-dir", gitDir, "symbolic-ref", "HEAD"); got != "refs/heads/develop" {
			t.Errorf("HEAD = %s", got)
		}
		git(t, "", "--git-dir", gitDir, "fsck", "--strict")

		// A bare repository and a mirror: the same refs; a script (stderr
		// no terminal) gets the summary and no progress meter.
		for _, kind := range []string{"--bare", "--mirror"} {
			dir := filepath.Join(t.TempDir(), "src"+kind+".git")
			git(t, "", "clone", "-q", kind, src, dir)
			out, errOut, err := b.run(t, "projects", "import", "--path", "acme/src"+kind, "--from", dir)
			if err != nil {
				t.Fatalf("import %s: %v\n%s", kind, err, errOut)
			}
			id, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
			kindDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(id)))
			if got, want := refs(kindDir), refs(filepath.Join(src, ".git")); got != want {
				t.Errorf("import of a %s clone:\n%s\nwant:\n%s", kind, got, want)
			}
			if p := mustProject(t, b, "acme/src"+kind); p.DefaultBranch != "develop" {
				t.Errorf("import of a %s clone: default branch %s", kind, p.DefaultBranch)
			}
			if want := "imported 2 branches and 2 tags (9 objects) into acme/src" + kind + "; default branch develop\n"; errOut != want {
				t.Errorf("stderr of a scripted import = %q, want the summary only", errOut)
			}
		}

		// Into an existing, empty project.
		b.mustRun(t, "projects", "create", "--path", "acme/empty")
		empty := mustProject(t, b, "acme/empty")
		b.mustRun(t, "projects", "import", "--path", "acme/empty", "--from", filepath.Join(src, ".git"))
		emptyDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(empty.ID)))
		if got, want := refs(emptyDir), refs(filepath.Join(src, ".git")); got != want {
			t.Errorf("import into an empty project:\n%s\nwant:\n%s", got, want)
		}

		// Refused: a project with history, a directory that is no repository, a bad path.
		before := refs(gitDir)
		projects := count(t, s, &models.Project{})
		notRepo := t.TempDir()
		noRefs := filepath.Join(t.TempDir(), "norefs.git")
		git(t, "", "init", "-q", "--bare", noRefs)
		// A repository with a blob missing: git's fetch itself fails.
		broken := filepath.Join(t.TempDir(), "broken")
		git(t, "", "init", "-q", "-b", "main", broken)
		if err := os.WriteFile(filepath.Join(broken, "lost.txt"), []byte("lost\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, broken, "add", "lost.txt")
		git(t, broken, "commit", "-q", "-m", "one")
		blob := git(t, broken, "rev-parse", "HEAD:lost.txt")
		if err := os.Remove(filepath.Join(broken, ".git", "objects", blob[:2], blob[2:])); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			args []string
			want []string
		}{
			{[]string{"--path", "acme/imported", "--from", src}, []string{"acme/imported already has branches or tags"}},
			{[]string{"--path", "acme/fresh", "--from", notRepo}, []string{"--from", "not a git repository"}},
			{[]string{"--path", "acme/fresh", "--from", filepath.Join(notRepo, "missing")}, []string{"--from", "not a directory"}},
			{[]string{"--path", "acme/fresh", "--from", noRefs}, []string{"--from", "no branches or tags"}},
			{[]string{"--path", "acme/fresh", "--from", broken}, []string{"git pack-objects"}},
			{[]string{"--path", "fresh", "--from", src}, []string{"GROUP/NAME"}},
			{[]string{"--path", "acme/fresh"}, []string{`"from"`}},
		} {
			b.wantErr(t, tt.want, append([]string{"projects", "import"}, tt.args...)...)
		}
		if after := refs(gitDir); after != before {
			t.Errorf("refused imports changed refs:\n%s\n%s", before, after)
		}
		if n := count(t, s, &models.Project{}); n != projects {
			t.Errorf("projects: %d before, %d after refused imports", projects, n)
		}
		if _, err := s.Projects.FindProjectByPath(context.Background(), "acme/fresh"); err == nil {
			t.Error("a refused import left project acme/fresh behind")
		}
		// No repository is left behind for the refused new project either.
		entries, _ := filepath.Glob(filepath.Join(b.repositories(), "@hashed", "*", "*", "*.git"))
		if len(entries) != int(projects) {
			t.Errorf("%d repositories on disk for %d projects", len(entries), projects)
		}
	})
}

// TestMain runs glmcp itself when GLMCP_TEST_MAIN=1, so that a test can
// start it as a process of its own (and kill it).
func TestMain(m *testing.M) {
	if os.Getenv("GLMCP_TEST_MAIN") == "1" {
		Main(Build{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Ensure an import killed (SIGKILL) while git copies leaves no project
// row and no repository, and that the next import of the same source
// succeeds and sweeps what the killed one left in the staging directory.
// The copy is held deterministically: the source's objects/info/alternates
// is a FIFO, so git's pack-objects blocks opening it until the test
// writes to it.
func TestProjects_importKilled(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		src := sourceRepository(t)
		fifo := filepath.Join(src, ".git", "objects", "info", "alternates")
		if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		b.mustRun(t, "projects", "create", "--path", "acme/before") // a store in use
		s := b.store(t)
		projects := count(t, s, &models.Project{})

		cmd := exec.Command(os.Args[0], "projects", "import", "--path", "acme/killed", "--from", src)
		cmd.Env = []string{"GLMCP_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
		for k, v := range b.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// Until git's pack-objects runs on the source (blocked on the FIFO).
		// The deadline only ends a test that went wrong.
		deadline := time.After(2 * time.Minute)
		for !packObjectsRunning(t, src) {
			select {
			case err := <-exited:
				t.Fatalf("glmcp ended before git ran: %v\n%s", err, stderr.String())
			case <-deadline:
				cmd.Process.Kill()
				t.Fatalf("git pack-objects never ran on the source\n%s", stderr.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := <-exited; err == nil {
			t.Fatal("glmcp was killed but exited 0")
		}
		// Let the orphaned pack-objects go (it dies with glmcp, or ends on
		// the closed pipe), and the source be an ordinary repository again.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		if err := os.Remove(fifo); err != nil {
			t.Fatal(err)
		}

		if _, err := s.Projects.FindProjectByPath(context.Background(), "acme/killed"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("the killed import left project acme/killed: %v", err)
		}
		if n := count(t, s, &models.Project{}); n != projects {
			t.Errorf("projects: %d before, %d after the killed import", projects, n)
		}
		repos, _ := filepath.Glob(filepath.Join(b.repositories(), "@hashed", "*", "*", "*.git"))
		if len(repos) != int(projects) {
			t.Errorf("%d repositories on disk for %d projects", len(repos), projects)
		}
		staging := filepath.Join(b.repositories(), repository.StagingDir)
		if left, _ := filepath.Glob(filepath.Join(staging, "import-*.git")); len(left) != 1 {
			t.Fatalf("staging after the kill: %q, want the killed import's repository", left)
		}

		out := b.mustRun(t, "projects", "import", "--path", "acme/killed", "--from", src)
		id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil {
			t.Fatalf("stdout = %q", out)
		}
		gitDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(id)))
		refs := func(dir string) string {
			return git(t, "", "--git-dir", dir, "for-each-ref", "--format=%(refname) %(objectname)")
		}
		if got, want := refs(gitDir), refs(filepath.Join(src, ".git")); got != want {
			t.Errorf("imported refs:\n%s\nwant:\n%s", got, want)
		}
		if left, _ := os.ReadDir(staging); len(left) != 0 {
			t.Errorf("the next import left %d entries in the staging directory (the sweep missed)", len(left))
		}
	})
}

// packObjectsRunning reports whether a git pack-objects reads dir now.
func packObjectsRunning(t *testing.T, dir string) bool {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte("pack-objects")) && bytes.Contains(b, []byte(dir)) {
			return true
		}
	}
	return false
}

// An imported repository has its refs packed before the command returns;
// projects housekeep runs the whole job (a commit-graph with Bloom
// filters) on demand and refuses a project that does not exist.
func TestProjects_importMaintainedAndHousekeep(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		src := sourceRepository(t)
		out := b.mustRun(t, "projects", "import", "--path", "acme/kept", "--from", src)
		id, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		gitDir := filepath.Join(b.repositories(), filepath.FromSlash(repository.HashedPath(id)))
		chain := filepath.Join(gitDir, "objects", "info", "commit-graphs", "commit-graph-chain")
		if _, err := os.Stat(filepath.Join(gitDir, "packed-refs")); err != nil {
			t.Errorf("refs not packed after import: %v", err)
		}
		if refs, err := os.ReadDir(filepath.Join(gitDir, "refs", "tags")); err != nil || len(refs) != 0 {
			t.Errorf("loose tags left after import: %v %v", refs, err)
		}
		_, errOut, err := b.run(t, "projects", "housekeep", "--path", "acme/kept")
		if err != nil || !strings.Contains(errOut, "maintained the repository of acme/kept") {
			t.Fatalf("housekeep: %v\n%s", err, errOut)
		}
		if _, err := os.Stat(chain); err != nil {
			t.Errorf("housekeep wrote no commit-graph: %v", err)
		}
		git(t, "", "--git-dir", gitDir, "commit-graph", "verify")
		b.wantErr(t, []string{`no project "acme/nope"`}, "projects", "housekeep", "--path", "acme/nope")
	})
}
