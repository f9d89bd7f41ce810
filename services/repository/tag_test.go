package repository_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// TestCreateTagAndDatedCommits: commits and tags dated by the caller (the
// demo history) are what git shows; an existing or ill-formed tag is
// refused and nothing changes.
func TestCreateTagAndDatedCommits(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	l := f.open()
	when := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	c, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
		Branch: "main", Message: "init", Author: repository.Signature{Name: "Alice", Email: "alice@example.com", When: when},
		Committer: repository.Signature{When: when.Add(time.Hour)},
		Actions:   []repository.Action{{Action: "create", FilePath: "a.txt", Content: []byte("a\n")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git("", "log", "-1", "--format=%an %aI %cn %cI", "main"); got != "Alice 2026-09-01T10:00:00+00:00 Alice 2026-09-01T11:00:00+00:00" {
		t.Errorf("git log = %q", got)
	}
	// The same request builds the same commit: demo histories are stable.
	f2 := newFixture(t)
	c2, err := f2.open().CommitFiles(ctx, repository.CommitFilesRequest{
		Branch: "main", Message: "init", Author: repository.Signature{Name: "Alice", Email: "alice@example.com", When: when},
		Committer: repository.Signature{When: when.Add(time.Hour)},
		Actions:   []repository.Action{{Action: "create", FilePath: "a.txt", Content: []byte("a\n")}},
	})
	if err != nil || c2.ID != c.ID {
		t.Errorf("same commit twice: %v, %v (%v)", c.ID, c2, err)
	}

	light, err := l.CreateTag(ctx, repository.TagRequest{Name: "v0", Target: "main"})
	if err != nil || light.TargetID != c.ID || light.Tagger != nil {
		t.Fatalf("lightweight tag = %+v, %v", light, err)
	}
	ann, err := l.CreateTag(ctx, repository.TagRequest{Name: "v1.0.0", Target: c.ID, Message: "Release 1.0.0",
		Tagger: repository.Signature{Name: "Root", Email: "root@example.com", When: when.Add(2 * time.Hour)}})
	if err != nil || ann.Commit.ID != c.ID || ann.TargetID == c.ID || ann.Tagger == nil {
		t.Fatalf("annotated tag = %+v, %v", ann, err)
	}
	if got := f.git("", "for-each-ref", "--format=%(refname) %(objecttype) %(taggername) %(taggerdate:iso-strict) %(contents:subject)", "refs/tags"); got !=
		"refs/tags/v0 commit   init\nrefs/tags/v1.0.0 tag Root 2026-09-01T12:00:00+00:00 Release 1.0.0" {
		t.Errorf("tags:\n%s", got)
	}
	if got := f.git("", "describe", "--tags", "--exact-match", "main"); got != "v1.0.0" {
		t.Errorf("git describe = %q", got)
	}
	before := f.git("", "for-each-ref")
	for _, bad := range []struct {
		req  repository.TagRequest
		want error
	}{
		{repository.TagRequest{Name: "v0", Target: "main"}, models.ErrConflict},
		{repository.TagRequest{Name: "bad..name", Target: "main"}, models.ErrInvalidInput},
		{repository.TagRequest{Name: "v2", Target: "nope"}, models.ErrNotFound},
		{repository.TagRequest{Name: "v3", Target: "main", Message: "m"}, models.ErrInvalidInput},
	} {
		if _, err := l.CreateTag(ctx, bad.req); !errors.Is(err, bad.want) {
			t.Errorf("CreateTag(%+v) = %v, want %v", bad.req, err, bad.want)
		}
	}
	if after := f.git("", "for-each-ref"); after != before {
		t.Errorf("refs changed by refused tags:\n%s\n%s", before, after)
	}
	f.fsck()
}
