package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
