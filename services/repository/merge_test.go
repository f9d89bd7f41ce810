package repository_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// mergeFixture: main and feature diverge from a common base.
func mergeFixture(t *testing.T, mainFiles, featureFiles map[string]string) *fixture {
	f := newFixture(t)
	f.commit("base", "2026-01-01T00:00:00Z", map[string]string{"shared.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "keep.txt": "k\n"})
	f.git(f.work, "checkout", "-q", "-b", "feature")
	f.commit("feature work", "2026-01-02T00:00:00Z", featureFiles)
	f.git(f.work, "checkout", "-q", "main")
	if mainFiles != nil {
		f.commit("main work", "2026-01-03T00:00:00Z", mainFiles)
	}
	f.push()
	return f
}

func TestMergeCommitCleanAndConflicting(t *testing.T) {
	f := mergeFixture(t,
		map[string]string{"shared.txt": "one\n2\n3\n4\n5\n6\n7\n8\n9\n"},
		map[string]string{"shared.txt": "1\n2\n3\n4\n5\n6\n7\n8\nnine\n", "new.txt": "n\n"})
	ctx := context.Background()
	l := f.open()
	conflicts, err := l.Conflicts(ctx, "main", "feature")
	if err != nil || len(conflicts) != 0 {
		t.Fatalf("Conflicts = %+v, %v", conflicts, err)
	}
	src := f.git("", "rev-parse", "feature")
	if _, err := l.Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice, ExpectedSourceSHA: strings.Repeat("4", 40)}); !errors.Is(err, models.ErrConflict) {
		t.Fatalf("Merge(sha guard) = %v", err)
	}
	res, err := l.Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice, ExpectedSourceSHA: src, Message: "Merge feature"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git("", "show", "main:shared.txt"); got != "one\n2\n3\n4\n5\n6\n7\n8\nnine" {
		t.Fatalf("merged shared.txt = %q", got)
	}
	if got := f.git("", "log", "-1", "--format=%P %s", "main"); !strings.HasSuffix(got, src+" Merge feature") || res.CommitID != f.git("", "rev-parse", "main") {
		t.Fatalf("merge commit = %q", got)
	}
	f.fsck()
	if _, err := l.Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice}); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("merge again = %v", err)
	}

	g := mergeFixture(t,
		map[string]string{"shared.txt": "1\n2\nmain\n4\n5\n6\n7\n8\n9\n"},
		map[string]string{"shared.txt": "1\n2\nfeature\n4\n5\n6\n7\n8\n9\n"})
	l = g.open()
	conflicts, err = l.Conflicts(ctx, "main", "feature")
	if err != nil || len(conflicts) != 1 || conflicts[0].Path != "shared.txt" || !strings.Contains(conflicts[0].TheirContent, "feature") {
		t.Fatalf("Conflicts = %+v, %v", conflicts, err)
	}
	before := g.git("", "rev-parse", "main")
	var ce *repository.ConflictError
	if _, err := l.Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice}); !errors.As(err, &ce) || !errors.Is(err, models.ErrConflict) {
		t.Fatalf("Merge(conflict) = %v", err)
	}
	if g.git("", "rev-parse", "main") != before {
		t.Fatal("a conflicting merge moved main")
	}
	if _, err := l.Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice, Method: "ff"}); !errors.Is(err, models.ErrConflict) {
		t.Fatalf("ff on diverged = %v", err)
	}
}

func TestMergeFastForwardAndSquash(t *testing.T) {
	f := mergeFixture(t, nil, map[string]string{"new.txt": "n\n"})
	f.git(f.work, "checkout", "-q", "feature")
	f.commit("more", "2026-01-05T00:00:00Z", map[string]string{"more.txt": "m\n"})
	f.push()
	ctx := context.Background()
	l := f.open()
	base := f.git("", "rev-parse", "main")
	res, err := l.Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice, Squash: true, SquashMessage: "Squashed", Method: "ff"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git("", "log", "--format=%s", "main"); got != "Squashed\nbase" || res.SquashID != res.CommitID || !res.FastForward {
		t.Fatalf("squash+ff: log %q, %+v", got, res)
	}
	if f.git("", "rev-parse", "main^") != base || f.git("", "rev-parse", "main^{tree}") != f.git("", "rev-parse", "feature^{tree}") {
		t.Fatal("squash commit has the wrong parent or tree")
	}
	if _, err := l.CreateBranch(ctx, "ff", "feature"); err != nil {
		t.Fatal(err)
	}
	// A plain fast-forward of main's own ancestor history.
	g := mergeFixture(t, nil, map[string]string{"new.txt": "n\n"})
	res, err = g.open().Merge(ctx, repository.MergeRequest{Source: "feature", Target: "main", Author: alice, Method: "ff"})
	if err != nil || g.git("", "rev-parse", "main") != g.git("", "rev-parse", "feature") {
		t.Fatalf("ff = %+v, %v", res, err)
	}
	f.fsck()
	g.fsck()
}
