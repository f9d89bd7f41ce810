package repository_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository"
)

// fixture is a project repository in a fresh storage plus a work tree
// cloned from it with the git command line.
type fixture struct {
	t       *testing.T
	storage *repository.Storage
	id      int64
	bare    string
	work    string
	date    string // GIT_AUTHOR_DATE and GIT_COMMITTER_DATE when set
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("the git command line is needed: %v", err)
	}
	st, err := repository.OpenStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Background housekeeping stops before the directory goes.
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, storage: st, id: 42}
	if err := st.Create(context.Background(), f.id, "main"); err != nil {
		t.Fatal(err)
	}
	f.bare = st.Path(f.id)
	f.work = filepath.Join(t.TempDir(), "work")
	f.git("", "clone", "-q", f.bare, f.work)
	f.git(f.work, "checkout", "-q", "-b", "main")
	return f
}

// git runs the git command line in dir ("" = the bare repository) with a
// fixed identity and returns its trimmed output.
func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	out, err := f.gitErr(dir, args...)
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (f *fixture) gitErr(dir string, args ...string) (string, error) {
	if dir == "" {
		args = append([]string{"--git-dir", f.bare}, args...)
	} else {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+f.t.TempDir(),
	)
	if f.date != "" {
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+f.date, "GIT_COMMITTER_DATE="+f.date)
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// write puts files into the work tree.
func (f *fixture) write(files map[string]string) {
	f.t.Helper()
	for p, content := range files {
		full := filepath.Join(f.work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// commit writes files, commits them all with msg at date (RFC 3339 or ""),
// and returns the new commit id.
func (f *fixture) commit(msg, date string, files map[string]string) string {
	f.t.Helper()
	f.write(files)
	f.git(f.work, "add", "-A")
	f.date = date
	defer func() { f.date = "" }()
	f.git(f.work, "commit", "-q", "--allow-empty", "-m", msg)
	return f.git(f.work, "rev-parse", "HEAD")
}

// push pushes every branch and tag of the work tree to the bare repository.
func (f *fixture) push() {
	f.t.Helper()
	f.git(f.work, "push", "-q", "--all", "origin")
	f.git(f.work, "push", "-q", "--tags", "origin")
}

// open opens the repository afresh, as a request would.
func (f *fixture) open() *repository.Local {
	f.t.Helper()
	l, err := f.storage.Open(context.Background(), f.id)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { l.Close() })
	return l
}

// fsck runs git fsck --strict on the bare repository.
func (f *fixture) fsck() {
	f.t.Helper()
	f.git("", "fsck", "--strict", "--no-dangling")
}
