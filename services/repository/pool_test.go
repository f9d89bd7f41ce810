package repository_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository"
)

func TestAPushWithGitIsSeenOnTheNextOpen(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first := f.commit("first", "", map[string]string{"a.txt": "one\n"})
	f.push()
	l := f.open()
	b, err := l.Blob(ctx, "main", "a.txt", repository.BlobOptions{})
	if err != nil || string(b.Content) != "one\n" || b.CommitID != first {
		t.Fatalf("Blob = %+v, %v", b, err)
	}
	l.Close()
	// An idle repository is reused while its packs are unchanged…
	if again := f.open(); again != l {
		t.Fatal("an unchanged repository was opened afresh")
	} else {
		again.Close()
	}
	// Enough objects that git push sends a pack (above unpackLimit) too.
	files := map[string]string{"a.txt": "two\n"}
	for i := range 150 {
		files[filepath.Join("many", strings.Repeat("x", i%7+1)+string(rune('a'+i%26))+".txt")] = strings.Repeat("line\n", i+1)
	}
	second := f.commit("second", "", files)
	f.git(f.work, "branch", "feature")
	f.push()
	if len(f.git("", "count-objects", "-v")) == 0 || !strings.Contains(f.git("", "count-objects", "-v"), "packs: 1") {
		t.Fatalf("the push sent no pack: %s", f.git("", "count-objects", "-v"))
	}
	// …and not once a push added a pack.
	l = f.open()
	b, err = l.Blob(ctx, "main", "a.txt", repository.BlobOptions{})
	if err != nil || string(b.Content) != "two\n" || b.CommitID != second {
		t.Fatalf("after push Blob = %+v, %v", b, err)
	}
	branches, err := l.Branches(ctx)
	if err != nil || len(branches) != 2 || branches[0].Name != "feature" || branches[1].Commit.ID != second {
		t.Fatalf("Branches = %+v, %v", branches, err)
	}
	l.Close()
	// gc packs every object and ref anew; a reused repository still reads them.
	f.git("", "gc", "-q", "--prune=now")
	f.git(f.work, "branch", "later")
	f.push()
	l = f.open()
	defer l.Close()
	if b, err := l.Blob(ctx, "later", "many/xa.txt", repository.BlobOptions{}); err != nil || b.Size == 0 {
		t.Fatalf("Blob after gc = %v, %v", b, err)
	}
	if branches, err := l.Branches(ctx); err != nil || len(branches) != 3 {
		t.Fatalf("Branches after gc = %+v, %v", branches, err)
	}
}
