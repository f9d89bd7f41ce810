package repository_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Two writers creating one new branch from the same start_sha or
// start_branch at once: one wins, the other gets a conflict (never the
// validation error GitLab gives for starting an existing branch from
// elsewhere), in every interleaving.
func TestCommitFiles_startRaceIsAConflict(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	base := f.commit("init", "", map[string]string{"a.txt": "a\n"})
	f.push()
	for round, start := range []repository.CommitFilesRequest{{StartSHA: base}, {StartBranch: "main"}, {StartSHA: base}, {StartBranch: "main"}} {
		branch := fmt.Sprintf("feature-%d", round)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		gate := make(chan struct{})
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := f.open()
				<-gate
				req := start
				req.Branch, req.Message, req.Author = branch, "racer", alice
				req.Actions = []repository.Action{{Action: "create", FilePath: fmt.Sprintf("r%d.txt", i), Content: []byte("x")}}
				_, errs[i] = l.CommitFiles(ctx, req)
			}()
		}
		close(gate)
		wg.Wait()
		wins := 0
		for i, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, models.ErrConflict) || errors.Is(err, models.ErrInvalidInput):
				t.Errorf("round %d racer %d: %v, want a conflict", round, i, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners", round, wins)
		}
	}
	// After the race, the same start again is still the conflict; a
	// start the branch did not grow from is GitLab's refusal.
	req := repository.CommitFilesRequest{Branch: "feature-0", StartSHA: base, Message: "late", Author: alice,
		Actions: []repository.Action{{Action: "create", FilePath: "late.txt", Content: []byte("x")}}}
	_, err := f.open().CommitFiles(ctx, req)
	if !errors.Is(err, models.ErrConflict) || !strings.Contains(err.Error(), `a branch called "feature-0" was created from the same start meanwhile`) {
		t.Fatalf("same start again: %v", err)
	}
	other, err := f.open().CommitFiles(ctx, repository.CommitFilesRequest{Branch: "other", StartSHA: base, Message: "o", Author: alice,
		Actions: []repository.Action{{Action: "create", FilePath: "o.txt", Content: []byte("o")}}})
	if err != nil {
		t.Fatal(err)
	}
	req.StartSHA = other.ID
	_, err = f.open().CommitFiles(ctx, req)
	if !errors.Is(err, models.ErrInvalidInput) || err.Error() != `a branch called "feature-0" already exists; switch to that branch in order to make changes: invalid input` {
		t.Fatalf("unrelated start: %v", err)
	}
}

// A ref lock left by a glmcp writer that died (its private link is still
// there, nobody holds its flock) is removed by the next write at once; a
// lock git or an operator holds (no link) is respected until it is older
// than any writer holds one.
func TestUpdateRef_staleLocks(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit("init", "", map[string]string{"a.txt": "a\n"})
	f.push()
	write := func(name string) error {
		_, err := f.open().CommitFiles(ctx, repository.CommitFilesRequest{Branch: "main", Message: name, Author: alice,
			Actions: []repository.Action{{Action: "create", FilePath: name, Content: []byte(name)}}})
		return err
	}
	lock := filepath.Join(f.bare, "refs", "heads", "main.lock")

	// A dead glmcp writer's: the lock is a second link of its own file.
	priv := filepath.Join(f.bare, "glmcp-lock-0123456789abcdef")
	if err := os.WriteFile(priv, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(priv, lock); err != nil {
		t.Fatal(err)
	}
	if err := write("after-crash.txt"); err != nil {
		t.Fatalf("write after a dead writer's lock: %v", err)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock is still there: %v", err)
	}

	// Someone else's lock, fresh: the write waits, then is a conflict.
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := write("held.txt")
	if !errors.Is(err, models.ErrConflict) || !strings.HasSuffix(err.Error(), "the ref is being updated by another writer: conflict") {
		t.Fatalf("write beside a live lock: %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a live lock was removed: %v", err)
	}
	// The same lock past the bound is stale.
	old := time.Now().Add(-11 * time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if err := write("stale.txt"); err != nil {
		t.Fatalf("write after an old lock: %v", err)
	}
	f.fsck()
}

// Recover removes what dead writers left in a repository (their locks,
// glmcp's temporary objects) and moves a directory in @hashed that is no
// repository and belongs to no project to the quarantine; an invalid one
// that a project owns is left.
func TestRecover(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit("init", "", map[string]string{"a.txt": "a\n"})
	f.push()
	priv := filepath.Join(f.bare, "glmcp-lock-00000000000000aa")
	mustWrite(t, priv, "")
	for _, l := range []string{"refs/heads/main.lock", "HEAD.lock"} {
		if err := os.Link(priv, filepath.Join(f.bare, filepath.FromSlash(l))); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{"config.lock", "packed-refs.lock"} {
		mustWrite(t, filepath.Join(f.bare, p), "")
		if err := os.Chtimes(filepath.Join(f.bare, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(f.bare, "objects/pack/tmp_obj_dead"), "half")
	mustWrite(t, filepath.Join(f.bare, "objects/pack/tmp_pack_live"), "half") // git's, young
	mustWrite(t, filepath.Join(f.bare, "refs/heads/young.lock"), "")          // someone's, young

	// Two directories that are no repository: one a project owns, one
	// no project owns (a 0-byte HEAD, what a full disk left).
	for _, id := range []int64{100, 101} {
		d := f.storage.Path(id)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(d, "HEAD"), "")
	}
	rep, err := f.storage.Recover(ctx, []int64{f.id, 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := repository.RecoverReport{Repositories: 1, Locks: 4, TempFiles: 1, Quarantined: 1, Invalid: 1}
	if rep != want {
		t.Fatalf("report %+v, want %+v", rep, want)
	}
	for _, p := range []string{"refs/heads/main.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "objects/pack/tmp_obj_dead", "glmcp-lock-00000000000000aa"} {
		if _, err := os.Stat(filepath.Join(f.bare, filepath.FromSlash(p))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{"objects/pack/tmp_pack_live", "refs/heads/young.lock"} {
		if _, err := os.Stat(filepath.Join(f.bare, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := os.Stat(f.storage.Path(100)); err != nil {
		t.Errorf("the owned invalid directory was moved: %v", err)
	}
	if _, err := os.Stat(f.storage.Path(101)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ownerless invalid directory is still in @hashed: %v", err)
	}
	q, _ := filepath.Glob(filepath.Join(f.storage.Root(), repository.QuarantineDir, "*.git"))
	if len(q) != 1 || !strings.HasPrefix(filepath.Base(q[0]), strings.TrimSuffix(filepath.Base(f.storage.Path(101)), ".git")+"-") {
		t.Errorf("quarantine holds %v", q)
	}
	os.Remove(filepath.Join(f.bare, "refs/heads/young.lock"))
	f.fsck()
	// A project whose directory was quarantined gets a new repository.
	if err := f.storage.Create(ctx, 101, "main"); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
