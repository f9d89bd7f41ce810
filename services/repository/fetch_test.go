package repository_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// TestCommitFiles_startRepository: a new branch of a fork started from its
// source's branch, after the source moved on: the start commit's objects
// the fork lacks, and only those, are copied in (git reads the fork's
// history as whole); an existing branch, a missing start or none at all
// are refused with no ref and nothing copied.
func TestCommitFiles_startRepository(t *testing.T) {
	ctx := context.Background()
	src := newFixture(t)
	src.commit("one", "2026-09-01T10:00:00Z", map[string]string{"a.txt": "a\n", "lib/l.txt": "l\n"})
	src.push()
	st := src.storage
	if _, err := st.CreateFork(ctx, src.id, 43, ""); err != nil {
		t.Fatal(err)
	}
	forkDir := st.Path(43)
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"--git-dir", forkDir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	inPack := func() string {
		t.Helper()
		for _, line := range strings.Split(git("count-objects", "-v"), "\n") {
			if n, ok := strings.CutPrefix(line, "in-pack: "); ok {
				return n
			}
		}
		t.Fatal("no in-pack count")
		return ""
	}
	// The source moves on: one commit adding sub/x.txt (a commit, the
	// root tree, the sub tree and the blob are new; lib/ is not).
	head := src.commit("two", "2026-09-02T10:00:00Z", map[string]string{"sub/x.txt": "x\n"})
	src.push()
	if before := inPack(); before != "5" { // one, its root tree, lib/, a.txt, l.txt
		t.Fatalf("fork in-pack before = %s", before)
	}
	open := func(id int64) *repository.Local {
		l, err := st.Open(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	commit := func(branch, startBranch, startSHA string) (*repository.Commit, error) {
		return open(43).CommitFiles(ctx, repository.CommitFilesRequest{Branch: branch, StartBranch: startBranch, StartSHA: startSHA,
			StartRepository: open(src.id), Message: "On the fork", Author: repository.Signature{Name: "Alice", Email: "alice@example.com"},
			Actions: []repository.Action{{Action: repository.ActionCreate, FilePath: "f-" + branch + ".txt", Content: []byte("f\n"), HasContent: true}}})
	}
	refsBefore := git("for-each-ref")
	for name, tc := range map[string]struct {
		branch, startBranch, startSHA string
		want                          error
		text                          string
	}{
		"existing branch":     {"main", "main", "", models.ErrInvalidInput, `a branch called "main" already exists`},
		"existing branch sha": {"main", "", head, models.ErrInvalidInput, `a branch called "main" already exists`},
		"missing start":       {"b", "nope", "", models.ErrNotFound, `start branch "nope"`},
		"missing start sha":   {"b", "", strings.Repeat("ab", 20), models.ErrNotFound, "object " + strings.Repeat("ab", 20)},
		"no start":            {"b", "", "", models.ErrInvalidInput, "needs start_branch or start_sha"},
	} {
		_, err := commit(tc.branch, tc.startBranch, tc.startSHA)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want %v with %q", name, err, tc.want, tc.text)
		}
	}
	if got := git("for-each-ref"); got != refsBefore {
		t.Errorf("refused commits changed refs:\n%s", got)
	}
	if got := inPack(); got != "5" {
		t.Errorf("refused commits copied objects: in-pack %s", got)
	}

	c, err := commit("b", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ParentIDs) != 1 || c.ParentIDs[0] != head || git("rev-parse", "b") != c.ID {
		t.Errorf("commit %+v, b = %s, want on %s", c, git("rev-parse", "b"), head)
	}
	if got := inPack(); got != "9" {
		t.Errorf("in-pack after = %s, want 9 (the 4 objects the fork lacked)", got)
	}
	if got, want := git("log", "--format=%H", "b^"), src.git("", "log", "--format=%H", "main"); got != want {
		t.Errorf("fork log of b^:\n%s\nsource log:\n%s", got, want)
	}
	git("fsck", "--strict", "--no-dangling")
	// The same start again: nothing left to copy.
	if _, err := commit("c", "", head); err != nil {
		t.Fatal(err)
	}
	if got := inPack(); got != "9" {
		t.Errorf("in-pack after a second start = %s, want 9", got)
	}
	git("fsck", "--strict", "--no-dangling")
}
