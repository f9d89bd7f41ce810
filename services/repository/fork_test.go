package repository_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// TestCreateFork: a fork holds the source's branches and tags at the same
// objects (git reads it as the same history), or one branch only; a
// missing branch, a fork into itself or into a repository with history is
// refused and leaves the target without refs; an empty source gives an
// empty fork.
func TestCreateFork(t *testing.T) {
	ctx := context.Background()
	src := newFixture(t)
	src.commit("one", "2026-09-01T10:00:00Z", map[string]string{"a.txt": "a\n"})
	src.git(src.work, "tag", "-a", "v1", "-m", "Release 1")
	src.git(src.work, "checkout", "-q", "-b", "topic")
	src.commit("topic work", "2026-09-02T10:00:00Z", map[string]string{"t.txt": "t\n"})
	src.push()
	st := src.storage
	refs := func(id int64) string {
		out, err := exec.Command("git", "--git-dir", st.Path(id), "for-each-ref", "--format=%(refname) %(objectname)").CombinedOutput()
		if err != nil {
			t.Fatalf("git for-each-ref: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}

	res, err := st.CreateFork(ctx, src.id, 43, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := refs(43), refs(src.id); got != want {
		t.Errorf("fork refs:\n%s\nsource refs:\n%s", got, want)
	}
	if res.DefaultBranch != "main" || strings.Join(res.Branches, ",") != "main,topic" || strings.Join(res.Tags, ",") != "v1" {
		t.Errorf("result = %+v", res)
	}
	if out, err := exec.Command("git", "--git-dir", st.Path(43), "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck on the fork: %v\n%s", err, out)
	}

	res, err = st.CreateFork(ctx, src.id, 44, "topic")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := refs(44), "refs/heads/topic "+src.git("", "rev-parse", "topic"); got != want || res.DefaultBranch != "topic" {
		t.Errorf("one-branch fork: refs %q (want %q), default %q", got, want, res.DefaultBranch)
	}

	if _, err := st.CreateFork(ctx, src.id, 45, "nope"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("missing branch: %v, want ErrNotFound", err)
	}
	if _, err := st.CreateFork(ctx, src.id, 43, ""); !errors.Is(err, models.ErrConflict) {
		t.Errorf("fork into a repository with history: %v, want ErrConflict", err)
	}
	if _, err := st.CreateFork(ctx, src.id, src.id, ""); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("fork into itself: %v, want ErrInvalidInput", err)
	}
	if _, err := st.CreateFork(ctx, 99, 46, ""); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("missing source: %v, want ErrNotFound", err)
	}

	if err := st.Create(ctx, 47, "main"); err != nil {
		t.Fatal(err)
	}
	res, err = st.CreateFork(ctx, 47, 48, "")
	if err != nil || res.DefaultBranch != "" || refs(48) != "" {
		t.Errorf("empty fork: %+v, %v, refs %q", res, err, refs(48))
	}
}
