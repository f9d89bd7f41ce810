package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newRunner(t *testing.T, opt Options) *Runner {
	t.Helper()
	r, err := New(opt)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

func initRepo(t *testing.T, r *Runner) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.git")
	if err := r.Run(context.Background(), Cmd{Name: "init", Flags: []string{"--bare", "--quiet"}, Args: []string{dir}}); err != nil {
		t.Fatalf("git init: %v", err)
	}
	return dir
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{
		"git version 2.39.5\n":           {2, 39, 5},
		"git version 2.45.1.windows.1":   {2, 45, 1},
		"git version 3.0":                {3, 0, 0},
		"git version 2.39.5 (Apple Git)": {2, 39, 5},
	} {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseVersion("hub version 2.14"); err == nil {
		t.Error("ParseVersion accepted a non-git version line")
	}
	if !(Version{2, 38, 9}).Less(MinVersion) || MinVersion.Less(Version{2, 38, 9}) || MinVersion.Less(MinVersion) {
		t.Error("Version.Less orders wrongly")
	}
}

// fakeGit writes an executable that prints out as `git version` would.
func fakeGit(t *testing.T, out string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNew_refusesOldOrMissingGit(t *testing.T) {
	_, err := New(Options{Path: fakeGit(t, "git version 2.30.2")})
	if err == nil || !strings.HasPrefix(err.Error(), "glmcp needs git ≥ 2.39.0 on PATH: ") || !strings.Contains(err.Error(), "is git 2.30.2") {
		t.Errorf("old git: err = %v", err)
	}
	_, err = New(Options{Path: filepath.Join(t.TempDir(), "no-such-git")})
	if err == nil || !strings.HasPrefix(err.Error(), "glmcp needs git ≥ 2.39.0 on PATH: ") {
		t.Errorf("missing git: err = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = New(Options{})
	if err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("no git on PATH: err = %v", err)
	}
	r := newRunner(t, Options{Path: fakeGit(t, "git version 2.39.0")})
	if r.Version() != MinVersion {
		t.Errorf("Version = %v", r.Version())
	}
}

// The server's environment and the user's configuration never reach git.
func TestRun_environmentScrubbed(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = leaked-global\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='leaked-parameters'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "user.email")
	t.Setenv("GIT_CONFIG_VALUE_0", "leaked@example.com")
	t.Setenv("GIT_AUTHOR_NAME", "leaked-author")
	r := newRunner(t, Options{})
	repo := initRepo(t, r)
	t.Setenv("GIT_DIR", t.TempDir()) // would redirect every command
	out, err := r.Output(context.Background(), Cmd{Dir: repo, Name: "config", Flags: []string{"--list"}})
	if err != nil {
		t.Fatalf("git config --list: %v", err)
	}
	if bytes.Contains(out, []byte("leaked")) {
		t.Errorf("configuration from the environment reached git:\n%s", out)
	}
	if !bytes.Contains(out, []byte("core.bare=true")) {
		t.Errorf("git did not read the repository's own config (GIT_DIR leaked?):\n%s", out)
	}
	out, err = r.Output(context.Background(), Cmd{Dir: repo, Name: "var", Args: []string{"GIT_AUTHOR_IDENT"}, NoEndOfOptions: true,
		Env: []string{"GIT_AUTHOR_EMAIL=a@example.com"}})
	if err == nil && bytes.Contains(out, []byte("leaked")) {
		t.Errorf("GIT_AUTHOR_NAME from the server's environment reached git: %s", out)
	}
}

// User input in Args is never read as an option.
func TestRun_endOfOptions(t *testing.T) {
	r := newRunner(t, Options{})
	repo := initRepo(t, r)
	target := filepath.Join(t.TempDir(), "written")
	err := r.Run(context.Background(), Cmd{Dir: repo, Name: "log", Args: []string{"--output=" + target}})
	if ExitCode(err) != 128 {
		t.Fatalf("log --end-of-options --output=…: err = %v, want exit 128", err)
	}
	if _, statErr := os.Stat(target); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("an argument was read as --output: %v", statErr)
	}
	if Stderr(err) == "" {
		t.Error("stderr was not kept")
	}
	if strings.Contains(err.Error(), "revision") || strings.Contains(err.Error(), repo) {
		t.Errorf("the error text carries git's stderr or the path: %q", err.Error())
	}
}

// Paths are literal: a glob in a user's path matches only itself.
func TestRun_literalPathspecs(t *testing.T) {
	r := newRunner(t, Options{})
	repo := initRepo(t, r)
	out, err := r.Output(context.Background(), Cmd{Dir: repo, Name: "rev-parse", Flags: []string{"--git-path"}, Args: []string{"x"}, NoEndOfOptions: true})
	if err != nil || len(out) == 0 {
		t.Fatalf("rev-parse: %q %v", out, err)
	}
	c := Cmd{Dir: repo, Name: "log", Paths: []string{"*"}}
	if got := c.argv(); got[0] != "--literal-pathspecs" || got[len(got)-2] != "--" || got[len(got)-1] != "*" {
		t.Errorf("argv = %q", got)
	}
}

func TestStart_canceledIsKilled(t *testing.T) {
	var logs bytes.Buffer
	r := newRunner(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	repo := initRepo(t, r)
	pr, pw := io.Pipe() // stdin that never ends
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := r.Start(ctx, Cmd{Dir: repo, Name: "hash-object", Flags: []string{"--stdin"}, Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || ExitCode(err) != -1 {
			t.Errorf("Wait after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a canceled git process was not killed")
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("a canceled command was logged as a failure:\n%s", logs.String())
	}
}

func TestStart_processLimit(t *testing.T) {
	r := newRunner(t, Options{MaxProcesses: 1})
	repo := initRepo(t, r)
	pr, pw := io.Pipe()
	p, err := r.Start(context.Background(), Cmd{Dir: repo, Name: "hash-object", Flags: []string{"--stdin"}, Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = r.Output(ctx, Cmd{Dir: repo, Name: "version"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "slot") {
		t.Errorf("second process past the limit: err = %v", err)
	}
	pw.Close()
	if err := p.Wait(); err != nil {
		t.Fatalf("first process: %v", err)
	}
	if _, err := r.Output(context.Background(), Cmd{Dir: repo, Name: "version"}); err != nil {
		t.Errorf("the slot was not freed: %v", err)
	}
}

func TestFailure_loggedWithStderr(t *testing.T) {
	var logs bytes.Buffer
	r := newRunner(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	repo := initRepo(t, r)
	_, err := r.Output(context.Background(), Cmd{Dir: repo, Name: "cat-file", Flags: []string{"-t"}, Args: []string{"0123456789012345678901234567890123456789"}})
	if ExitCode(err) != 128 {
		t.Fatalf("cat-file of a missing object: %v", err)
	}
	if !strings.Contains(logs.String(), "git command failed") || !strings.Contains(logs.String(), "command=cat-file") || !strings.Contains(logs.String(), "stderr=") {
		t.Errorf("log = %s", logs.String())
	}
}

func TestClose_stopsEarlyReader(t *testing.T) {
	r := newRunner(t, Options{})
	repo := initRepo(t, r)
	pr, pw := io.Pipe()
	defer pw.Close()
	p, err := r.Start(context.Background(), Cmd{Dir: repo, Name: "cat-file", Flags: []string{"--batch-check"}, Stdin: pr})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close of a running process = %v, want nil", err)
	}
}

// A repository owned by another user (a mounted source in the container)
// is read, upload-pack of a local fetch included: safe.directory comes
// from glmcp's global configuration, which that process still reads.
func TestRun_otherOwnersRepository(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to hand a repository to another user")
	}
	r := newRunner(t, Options{})
	src := initRepo(t, r)
	blob, err := r.Output(context.Background(), Cmd{Dir: src, Name: "hash-object", Flags: []string{"-w", "--stdin"}, Stdin: strings.NewReader("x")})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.Output(context.Background(), Cmd{Dir: src, Name: "mktree", Stdin: strings.NewReader("100644 blob " + strings.TrimSpace(string(blob)) + "\tx\n")})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := r.Output(context.Background(), Cmd{Dir: src, Name: "commit-tree", Args: []string{strings.TrimSpace(string(tree))},
		Flags: []string{"-m", "c"}, NoEndOfOptions: true,
		Env: []string{"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), Cmd{Dir: src, Name: "update-ref", Args: []string{"refs/heads/main", strings.TrimSpace(string(commit))}}); err != nil {
		t.Fatal(err)
	}
	if err := filepath.Walk(filepath.Dir(src), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}); err != nil {
		t.Fatal(err)
	}
	dst := initRepo(t, r)
	if err := r.Run(context.Background(), Cmd{Dir: dst, Name: "fetch", Flags: []string{"--no-write-fetch-head", "-q"},
		Args: []string{src, "refs/heads/main:refs/heads/main"}}); err != nil {
		t.Fatalf("fetch from another user's repository: %v: %s", err, Stderr(err))
	}
	if err := r.Run(context.Background(), Cmd{Dir: src, Name: "rev-parse", Args: []string{"main"}, NoEndOfOptions: true}); err != nil {
		t.Fatalf("read another user's repository: %v: %s", err, Stderr(err))
	}
}

// A git command that failed on a full, over-quota or read-only disk is
// that errno too (git prints only strerror's words); any other failure
// is not.
func TestError_storageErrno(t *testing.T) {
	exit := errors.New("exit status 128")
	for stderr, want := range map[string]error{
		"error: file write error: No space left on device\nfatal: unable to write loose object file": syscall.ENOSPC,
		"fatal: unable to create temporary file: Disk quota exceeded":                                syscall.EDQUOT,
		"error: unable to create file HEAD.lock: Read-only file system":                              syscall.EROFS,
		"fatal: not a git repository (or any of the parent directories): .git":                       nil,
	} {
		err := error(&Error{Name: "fetch", ExitCode: 128, Stderr: stderr, Err: exit})
		for _, errno := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS} {
			if got := errors.Is(err, errno); got != (errno == want) {
				t.Errorf("%q: errors.Is(%v) = %v", stderr, errno, got)
			}
		}
		if !errors.Is(err, exit) {
			t.Errorf("%q: the exit error is lost", stderr)
		}
		if strings.Contains(err.Error(), "device") || strings.Contains(err.Error(), "HEAD.lock") {
			t.Errorf("the message carries stderr: %q", err.Error())
		}
	}
}

// A pooled process (a long-lived cat-file) takes no slot, lives without
// the default timeout, and talks through its stdin pipe.
func TestStart_pooledTakesNoSlot(t *testing.T) {
	r := newRunner(t, Options{MaxProcesses: 1})
	repo := initRepo(t, r)
	p, err := r.Start(context.Background(), Cmd{Dir: repo, Name: "cat-file", Flags: []string{"--batch-command"},
		Pooled: true, StdinPipe: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.ctx.Deadline(); ok {
		t.Error("a pooled process got a deadline")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.Output(ctx, Cmd{Dir: repo, Name: "version"}); err != nil {
		t.Errorf("a command beside a pooled process: %v", err)
	}
	if _, err := io.WriteString(p.Stdin(), "info "+strings.Repeat("0", 40)+"\n"); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 49)
	if _, err := io.ReadFull(p.Stdout(), line); err != nil || string(line) != strings.Repeat("0", 40)+" missing\n" {
		t.Fatalf("answer %q, %v", line, err)
	}
	p.Stdin().Close()
	if err := p.Wait(); err != nil {
		t.Fatalf("cat-file at end of input: %v", err)
	}
	if _, err := r.Output(ctx, Cmd{Dir: repo, Name: "version"}); err != nil {
		t.Errorf("after the pooled process: %v", err)
	}
}
