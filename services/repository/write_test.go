package repository_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

var alice = repository.Signature{Name: "Alice", Email: "alice@example.com"}

func ptr[T any](v T) *T { return &v }

func TestCommitFilesActions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	l := f.open()
	// The first commit of an empty repository.
	c1, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
		Branch: "main", Message: "init", Author: alice,
		Actions: []repository.Action{
			{Action: "create", FilePath: "README.md", Content: []byte("hello\nworld\n")},
			{Action: "create", FilePath: "src/run.sh", Content: []byte("#!/bin/sh\n"), ExecuteFilemode: ptr(true)},
			{Action: "create", FilePath: "old/name.txt", Content: []byte("moved\n")},
			{Action: "create", FilePath: "gone.txt", Content: []byte("x")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git("", "log", "--format=%H %an <%ae> %s", "main"); got != c1.ID+" Alice <alice@example.com> init" {
		t.Fatalf("git log = %q", got)
	}
	c2, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
		Branch: "main", Message: "edit", Author: alice,
		Actions: []repository.Action{
			{Action: "update", FilePath: "README.md", OldStr: ptr("world"), NewStr: ptr("there")},
			{Action: "move", PreviousPath: "old/name.txt", FilePath: "new/name.txt"},
			{Action: "delete", FilePath: "gone.txt"},
			{Action: "chmod", FilePath: "src/run.sh", ExecuteFilemode: ptr(false)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git("", "show", "main:README.md"); got != "hello\nthere" {
		t.Fatalf("README = %q", got)
	}
	tree := f.git("", "ls-tree", "-r", "main")
	for _, want := range []string{"100644 blob", "\tnew/name.txt", "\tsrc/run.sh"} {
		if !strings.Contains(tree, want) {
			t.Fatalf("tree lacks %q:\n%s", want, tree)
		}
	}
	if strings.Contains(tree, "old/") || strings.Contains(tree, "gone.txt") || strings.Contains(tree, "100755") {
		t.Fatalf("tree after move/delete/chmod:\n%s", tree)
	}
	if got := f.git("", "rev-parse", "main^"); got != c1.ID {
		t.Fatalf("parent = %s, want %s", got, c1.ID)
	}
	// A new branch from start_branch, then from start_sha.
	c3, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
		Branch: "feature", StartBranch: "main", Message: "feature", Author: alice,
		Actions: []repository.Action{{Action: "create", FilePath: "f.txt", Content: []byte("f\n")}},
	})
	if err != nil || f.git("", "rev-parse", "feature^") != c2.ID {
		t.Fatalf("start_branch commit = %+v, %v", c3, err)
	}
	if _, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
		Branch: "old", StartSHA: c1.ID, Message: "from c1", Author: alice,
		Actions: []repository.Action{{Action: "update", FilePath: "gone.txt", Content: []byte("back")}},
	}); err != nil || f.git("", "show", "old:gone.txt") != "back" {
		t.Fatalf("start_sha commit: %v", err)
	}
	f.fsck()
}

func TestCommitFilesBadInputChangesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	head := f.commit("init", "", map[string]string{"a.txt": "same same\n", "dir/b.txt": "b\n"})
	f.push()
	l := f.open()
	create := func(p string) repository.Action {
		return repository.Action{Action: "create", FilePath: p, Content: []byte("x")}
	}
	for _, tc := range []struct {
		name string
		req  repository.CommitFilesRequest
		want error
	}{
		{"traversal", repository.CommitFilesRequest{Actions: []repository.Action{create("../x")}}, models.ErrInvalidInput},
		{"absolute", repository.CommitFilesRequest{Actions: []repository.Action{create("/etc/x")}}, models.ErrInvalidInput},
		{"nul", repository.CommitFilesRequest{Actions: []repository.Action{create("a\x00b")}}, models.ErrInvalidInput},
		{"dot git", repository.CommitFilesRequest{Actions: []repository.Action{create(".git/hooks/x")}}, models.ErrInvalidInput},
		{"create existing", repository.CommitFilesRequest{Actions: []repository.Action{create("a.txt")}}, models.ErrInvalidInput},
		{"create over a directory", repository.CommitFilesRequest{Actions: []repository.Action{create("dir")}}, models.ErrInvalidInput},
		{"create under a file", repository.CommitFilesRequest{Actions: []repository.Action{create("a.txt/c")}}, models.ErrInvalidInput},
		{"update missing", repository.CommitFilesRequest{Actions: []repository.Action{{Action: "update", FilePath: "no.txt"}}}, models.ErrInvalidInput},
		{"delete missing", repository.CommitFilesRequest{Actions: []repository.Action{{Action: "delete", FilePath: "no.txt"}}}, models.ErrInvalidInput},
		{"old_str twice", repository.CommitFilesRequest{Actions: []repository.Action{{Action: "update", FilePath: "a.txt", OldStr: ptr("same"), NewStr: ptr("x")}}}, models.ErrInvalidInput},
		{"old_str absent", repository.CommitFilesRequest{Actions: []repository.Action{{Action: "update", FilePath: "a.txt", OldStr: ptr("nope"), NewStr: ptr("x")}}}, models.ErrInvalidInput},
		{"unknown action", repository.CommitFilesRequest{Actions: []repository.Action{{Action: "copy", FilePath: "a.txt"}}}, models.ErrInvalidInput},
		{"no actions", repository.CommitFilesRequest{}, models.ErrInvalidInput},
		{"bad branch", repository.CommitFilesRequest{Branch: "a..b", Actions: []repository.Action{create("n")}}, models.ErrInvalidInput},
		{"new branch without start", repository.CommitFilesRequest{Branch: "topic", Actions: []repository.Action{create("n")}}, models.ErrInvalidInput},
		{"missing start branch", repository.CommitFilesRequest{Branch: "topic", StartBranch: "nope", Actions: []repository.Action{create("n")}}, models.ErrNotFound},
		{"start on an existing branch", repository.CommitFilesRequest{StartBranch: "other", Actions: []repository.Action{create("n")}}, models.ErrInvalidInput},
		{"stale expected sha", repository.CommitFilesRequest{ExpectedOldSHA: strings.Repeat("1", 40), Actions: []repository.Action{create("n")}}, models.ErrConflict},
		{"stale last_commit_id", repository.CommitFilesRequest{Actions: []repository.Action{{Action: "update", FilePath: "a.txt", Content: []byte("y"), LastCommitID: strings.Repeat("2", 40)}}}, models.ErrConflict},
		{"second action fails", repository.CommitFilesRequest{Actions: []repository.Action{create("ok.txt"), create("ok.txt")}}, models.ErrInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			if req.Branch == "" {
				req.Branch = "main"
			}
			req.Message, req.Author = "m", alice
			if _, err := l.CommitFiles(ctx, req); !errors.Is(err, tc.want) {
				t.Fatalf("CommitFiles = %v, want %v", err, tc.want)
			}
			if got := f.git("", "for-each-ref", "--format=%(refname) %(objectname)"); got != "refs/heads/main "+head {
				t.Fatalf("refs changed: %s", got)
			}
		})
	}
}

// Many writers commit on one branch at once, all prepared from the same
// head: exactly one wins, the others get a conflict, and the branch is a
// valid history that git accepts.
func TestConcurrentCommitsOnOneBranch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	head := f.commit("init", "", map[string]string{"a.txt": "a\n"})
	f.push()
	const writers = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]error, writers)
	ids := make([]string, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := f.open() // each request opens its own
			<-start
			c, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
				Branch: "main", Message: "writer", Author: alice, ExpectedOldSHA: head,
				Actions: []repository.Action{{Action: "create", FilePath: "w" + string(rune('a'+i)) + ".txt", Content: []byte("x")}},
			})
			results[i] = err
			if c != nil {
				ids[i] = c.ID
			}
		}()
	}
	close(start)
	wg.Wait()
	won := ""
	for i, err := range results {
		switch {
		case err == nil:
			if won != "" {
				t.Fatalf("two writers won: %s and %s", won, ids[i])
			}
			won = ids[i]
		case !errors.Is(err, models.ErrConflict):
			t.Fatalf("writer %d: %v, want a conflict", i, err)
		}
	}
	if won == "" {
		t.Fatal("no writer won")
	}
	if got := f.git("", "log", "--format=%H", "main"); got != won+"\n"+head {
		t.Fatalf("git log = %q", got)
	}
	f.fsck()

	// Without a guard each writer builds on the head it read; every
	// commit that succeeds is in the history and none is lost silently.
	for i := range writers {
		results[i], ids[i] = nil, ""
	}
	start = make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := f.open().CommitFiles(ctx, repository.CommitFilesRequest{
				Branch: "main", Message: "free writer", Author: alice,
				Actions: []repository.Action{{Action: "create", FilePath: "free" + string(rune('a'+i)) + ".txt", Content: []byte("x")}},
			})
			results[i] = err
			if c != nil {
				ids[i] = c.ID
			}
		}()
	}
	close(start)
	wg.Wait()
	history := f.git("", "log", "--format=%H", "main")
	wins := 0
	for i, err := range results {
		if err == nil {
			wins++
			if !strings.Contains(history, ids[i]) {
				t.Fatalf("commit %s reported done but not in git log", ids[i])
			}
		} else if !errors.Is(err, models.ErrConflict) {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if n := strings.Count(history, "\n") + 1; n != 2+wins {
		t.Fatalf("history has %d commits, want %d", n, 2+wins)
	}
	f.fsck()
}

func TestBranchesAndTags(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	head := f.commit("init", "", map[string]string{"a.txt": "a\n"})
	f.git(f.work, "tag", "v1.0.0")
	f.git(f.work, "tag", "-a", "v1.1.0", "-m", "release 1.1")
	f.git(f.work, "branch", "packed")
	f.push()
	f.git("", "pack-refs", "--all")
	l := f.open()
	b, err := l.CreateBranch(ctx, "feature/x", "v1.0.0")
	if err != nil || b.Commit.ID != head || f.git("", "rev-parse", "feature/x") != head {
		t.Fatalf("CreateBranch = %+v, %v", b, err)
	}
	if _, err := l.CreateBranch(ctx, "feature/x", "main"); !errors.Is(err, models.ErrConflict) {
		t.Fatalf("CreateBranch(existing) = %v", err)
	}
	if _, err := l.CreateBranch(ctx, "packed", "main"); !errors.Is(err, models.ErrConflict) {
		t.Fatalf("CreateBranch(existing packed) = %v", err)
	}
	for _, bad := range []string{"a..b", "-x", "x.lock", "a b", "HEAD", "a~1", ""} {
		if _, err := l.CreateBranch(ctx, bad, "main"); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("CreateBranch(%q) = %v", bad, err)
		}
	}
	if _, err := l.CreateBranch(ctx, "y", "nope"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("CreateBranch(from missing) = %v", err)
	}
	tags, err := l.Tags(ctx)
	if err != nil || len(tags) != 2 || tags[0].Name != "v1.0.0" || tags[1].Message != "release 1.1\n" || tags[1].Commit.ID != head || tags[1].Tagger == nil {
		t.Fatalf("Tags = %+v, %v", tags, err)
	}
	if err := l.DeleteBranch(ctx, "packed", strings.Repeat("3", 40)); !errors.Is(err, models.ErrConflict) {
		t.Fatalf("DeleteBranch(stale) = %v", err)
	}
	if err := l.DeleteBranch(ctx, "packed", head); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteBranch(ctx, "packed", ""); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("DeleteBranch(gone) = %v", err)
	}
	if got := f.git("", "branch", "--format=%(refname:short)"); got != "feature/x\nmain" {
		t.Fatalf("git branch = %q", got)
	}
	f.fsck()
}
