package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
		for _, tt := range []struct {
			args []string
			want []string
		}{
			{[]string{"--path", "acme/imported", "--from", src}, []string{"acme/imported already has branches or tags"}},
			{[]string{"--path", "acme/fresh", "--from", notRepo}, []string{"--from", "not a git repository"}},
			{[]string{"--path", "acme/fresh", "--from", filepath.Join(notRepo, "missing")}, []string{"--from", "not a directory"}},
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
		if _, err := s.FindProjectByPath(context.Background(), "acme/fresh"); err == nil {
			t.Error("a refused import left project acme/fresh behind")
		}
		// No repository is left behind for the refused new project either.
		entries, _ := filepath.Glob(filepath.Join(b.repositories(), "@hashed", "*", "*", "*.git"))
		if len(entries) != int(projects) {
			t.Errorf("%d repositories on disk for %d projects", len(entries), projects)
		}
	})
}
