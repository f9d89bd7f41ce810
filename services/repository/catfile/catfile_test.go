package catfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

func runner(t *testing.T) *gitcmd.Runner {
	t.Helper()
	r, err := gitcmd.Default()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func git(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + dir, "-c", "gc.auto=0"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com",
		"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a bare repository with n commits, each adding a blob, and
// returns it with the blobs' ids and contents.
func repo(t *testing.T, n int) (string, map[string]string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.git")
	git(t, "", "", "init", "-q", "--bare", dir)
	blobs := map[string]string{}
	parent := ""
	for i := range n {
		content := fmt.Sprintf("file %d\n%s", i, strings.Repeat("x", i*10))
		b := git(t, dir, content, "hash-object", "-w", "--stdin")
		blobs[b] = content
		tree := git(t, dir, fmt.Sprintf("100644 blob %s\tf%d.txt\n", b, i), "mktree")
		args := []string{"commit-tree", tree, "-m", fmt.Sprint("c", i)}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		parent = git(t, dir, "", args...)
	}
	git(t, dir, "", "update-ref", "refs/heads/main", parent)
	return dir, blobs
}
