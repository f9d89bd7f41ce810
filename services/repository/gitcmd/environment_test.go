package gitcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
