package repository_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

func TestBlobLineRangesAndBounds(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var text strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	f.commit("files", "", map[string]string{"src/a.txt": text.String(), "noeol.txt": "x\ny"})
	f.push()
	l := f.open()
	tests := []struct {
		name            string
		path            string
		opt             repository.BlobOptions
		want            string
		from, to, total int
		eof, truncated  bool
	}{
		{"whole", "src/a.txt", repository.BlobOptions{}, text.String(), 1, 10, 10, true, false},
		{"range", "src/a.txt", repository.BlobOptions{FromLine: 3, Lines: 2}, "line 3\nline 4\n", 3, 4, 0, false, false},
		{"range to the end", "src/a.txt", repository.BlobOptions{FromLine: 9, Lines: 2}, "line 9\nline 10\n", 9, 10, 10, true, false},
		{"past the end", "src/a.txt", repository.BlobOptions{FromLine: 20, Lines: 2}, "", 20, 19, 10, true, false},
		{"byte bound cuts at a line", "src/a.txt", repository.BlobOptions{MaxBytes: 15}, "line 1\nline 2\n", 1, 2, 0, false, true},
		{"no final newline", "noeol.txt", repository.BlobOptions{FromLine: 2}, "y", 2, 2, 2, true, false},
		{"leading slash trimmed", "src/a.txt/", repository.BlobOptions{Lines: 1}, "line 1\n", 1, 1, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := l.Blob(ctx, "main", tt.path, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if string(b.Content) != tt.want || b.FromLine != tt.from || b.ToLine != tt.to || b.TotalLines != tt.total || b.EOF != tt.eof || b.Truncated != tt.truncated || b.Binary {
				t.Fatalf("Blob = content %q from %d to %d total %d eof %v truncated %v binary %v", b.Content, b.FromLine, b.ToLine, b.TotalLines, b.EOF, b.Truncated, b.Binary)
			}
			if want := f.git("", "rev-parse", "main:src/a.txt"); tt.path == "src/a.txt" && b.BlobID != want {
				t.Fatalf("BlobID = %s, want %s", b.BlobID, want)
			}
		})
	}
}

func TestBlobBadInput(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit("files", "", map[string]string{"dir/a.txt": "a\n"})
	f.push()
	l := f.open()
	for _, tc := range []struct {
		ref, path string
		want      error
	}{
		{"main", "../etc/passwd", models.ErrInvalidInput},
		{"main", "dir/../../x", models.ErrInvalidInput},
		{"main", "/etc/passwd", models.ErrInvalidInput},
		{"main", "dir/a.txt\x00", models.ErrInvalidInput},
		{"main", ".git/config", models.ErrInvalidInput},
		{"main", "", models.ErrInvalidInput},
		{"main", "dir", models.ErrInvalidInput},
		{"main", "nope.txt", models.ErrNotFound},
		{"nope", "dir/a.txt", models.ErrNotFound},
		{"0000000000000000000000000000000000000000", "dir/a.txt", models.ErrNotFound},
		{"-x", "dir/a.txt", models.ErrInvalidInput},
		{"main\x00", "dir/a.txt", models.ErrInvalidInput},
	} {
		if _, err := l.Blob(ctx, tc.ref, tc.path, repository.BlobOptions{}); !errors.Is(err, tc.want) {
			t.Errorf("Blob(%q, %q) = %v, want %v", tc.ref, tc.path, err, tc.want)
		}
	}
	if _, err := l.Blob(ctx, "main", "dir/a.txt", repository.BlobOptions{FromLine: -1}); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("negative line = %v", err)
	}
}

func TestBlobBinaryAndHuge(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	bin := append([]byte("GIF89a\x00\x01"), bytes.Repeat([]byte{0, 1, 2}, 100)...)
	f.write(map[string]string{"img.gif": string(bin)})
	// 50 MB: one line of 50 MB, and 50 MB of short lines.
	big := filepath.Join(f.work, "one-line.txt")
	if err := os.WriteFile(big, bytes.Repeat([]byte("a"), 50<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for lines.Len() < 50<<20 {
		fmt.Fprintf(&lines, "%08d %s\n", lines.Len(), strings.Repeat("z", 55))
	}
	if err := os.WriteFile(filepath.Join(f.work, "lines.txt"), lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f.git(f.work, "config", "core.compression", "1")
	f.git(f.work, "config", "core.bigFileThreshold", "1m")
	f.commit("big and binary", "", nil)
	f.push()
	f.git("", "-c", "core.bigFileThreshold=1m", "-c", "pack.compression=1", "repack", "-adq") // packed, as on a real server
	l := f.open()

	b, err := l.Blob(ctx, "main", "img.gif", repository.BlobOptions{})
	if err != nil || !b.Binary || !bytes.Equal(b.Content, bin) {
		t.Fatalf("binary Blob = %v, %v", b, err)
	}
	if _, err := l.Blob(ctx, "main", "img.gif", repository.BlobOptions{MaxBytes: 10}); !errors.Is(err, models.ErrInvalidInput) || !strings.Contains(err.Error(), "binary") {
		t.Fatalf("binary over the bound = %v", err)
	}
	b, err = l.Blob(ctx, "main", "one-line.txt", repository.BlobOptions{MaxBytes: 1 << 20})
	if err != nil || len(b.Content) != 1<<20 || !b.Truncated || b.Size != 50<<20 {
		t.Fatalf("one huge line: %d bytes, truncated %v, size %d, %v", len(b.Content), b.Truncated, b.Size, err)
	}
	b, err = l.Blob(ctx, "main", "lines.txt", repository.BlobOptions{FromLine: 700000, Lines: 3})
	if err != nil || strings.Count(string(b.Content), "\n") != 3 || b.EOF {
		t.Fatalf("deep range of 50 MB: %q, %v", b.Content, err)
	}
	want := f.git("", "show", "main:lines.txt")
	wantLines := strings.SplitAfter(want, "\n")[699999:700002]
	if string(b.Content) != strings.Join(wantLines, "") {
		t.Fatalf("range = %q, want %q", b.Content, wantLines)
	}
}

func TestTreeListsInGitOrderAndPages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit("tree", "", map[string]string{
		"a.txt": "1", "a/b.txt": "2", "a/c/d.txt": "3", "a-b": "4", "b/e.txt": "5", "z": "6", "a/c.txt": "7",
	})
	f.push()
	l := f.open()
	want := strings.Split(f.git("", "ls-tree", "-r", "-t", "--name-only", "main"), "\n")
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		page, err := l.Tree(ctx, "main", "", repository.TreeOptions{Recursive: true, Limit: 3, After: after})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entries) > 3 || pages > 10 {
			t.Fatalf("page of %d entries", len(page.Entries))
		}
		for _, e := range page.Entries {
			got = append(got, e.Path)
		}
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged recursive tree = %v\nwant (git ls-tree -r -t) %v", got, want)
	}
	page, err := l.Tree(ctx, "main", "a", repository.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range page.Entries {
		names = append(names, e.Type+":"+e.Path)
	}
	if strings.Join(names, ",") != "blob:a/b.txt,blob:a/c.txt,tree:a/c" || page.Next != "" {
		t.Fatalf("tree of a = %v next %q", names, page.Next)
	}
	if _, err := l.Tree(ctx, "main", "a.txt", repository.TreeOptions{}); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("tree of a file = %v", err)
	}
	if _, err := l.Tree(ctx, "main", "nope", repository.TreeOptions{}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("tree of a missing dir = %v", err)
	}
	if _, err := l.Tree(ctx, "main", "../", repository.TreeOptions{}); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("tree of ../ = %v", err)
	}
}

func TestLogMatchesGit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit("c1", "2026-01-01T10:00:00Z", map[string]string{"a.txt": "1"})
	f.commit("c2", "2026-01-02T10:00:00Z", map[string]string{"b.txt": "1"})
	f.git(f.work, "checkout", "-q", "-b", "topic")
	f.commit("t1", "2026-01-03T10:00:00Z", map[string]string{"a.txt": "2"})
	f.git(f.work, "checkout", "-q", "main")
	f.commit("c3", "2026-01-04T10:00:00Z", map[string]string{"c.txt": "1"})
	f.date = "2026-01-05T10:00:00Z"
	f.git(f.work, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	f.date = ""
	f.git(f.work, "-c", "user.name=Bob", "commit", "-q", "--allow-empty", "--author", "Bob <bob@example.com>", "-m", "bob's", "--date", "2026-01-06T10:00:00Z")
	f.push()
	l := f.open()
	for _, tc := range []struct {
		opt  repository.LogOptions
		args []string
	}{
		{repository.LogOptions{}, nil},
		{repository.LogOptions{Path: "a.txt"}, []string{"--", "a.txt"}},
		{repository.LogOptions{FirstParent: true}, []string{"--first-parent"}},
		{repository.LogOptions{Author: "bob"}, []string{"--author=bob"}},
		{repository.LogOptions{Ref: "topic"}, nil},
		{repository.LogOptions{Offset: 2, Limit: 2}, []string{"--skip=2", "-n2"}},
		{repository.LogOptions{Since: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}, []string{"--since=2026-01-03T00:00:00Z", "--until=2026-01-05T00:00:00Z"}},
		{repository.LogOptions{Path: "a.txt", FirstParent: true}, []string{"--first-parent", "--", "a.txt"}},
	} {
		page, err := l.Log(ctx, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range page.Commits {
			got = append(got, c.ID)
		}
		ref := tc.opt.Ref
		if ref == "" {
			ref = "main"
		}
		want := f.git("", append([]string{"log", "--format=%H", ref}, tc.args...)...)
		if strings.Join(got, "\n") != want {
			t.Errorf("Log(%+v) = %v\nwant git log %v = %v", tc.opt, got, tc.args, strings.Split(want, "\n"))
		}
	}
	page, err := l.Log(ctx, repository.LogOptions{Limit: 2})
	if err != nil || len(page.Commits) != 2 || !page.More || page.Commits[0].Title != "bob's" || page.Commits[0].Author.Name != "Bob" {
		t.Fatalf("first page = %+v, %v", page, err)
	}
	if _, err := l.Log(ctx, repository.LogOptions{Ref: "nope"}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("log of a missing ref = %v", err)
	}
	if _, err := l.Log(ctx, repository.LogOptions{Path: "../x"}); !errors.Is(err, models.ErrInvalidInput) {
		t.Fatalf("log of ../x = %v", err)
	}
	c, err := l.Commit(ctx, page.Commits[1].ID[:10])
	if err != nil || c.Title != "merge topic" || len(c.ParentIDs) != 2 {
		t.Fatalf("Commit(short id) = %+v, %v", c, err)
	}
}

// TestRefHash: a ref's object id as git's rev-parse gives it, loose or
// packed, through a symbolic ref, an annotated tag not peeled; a missing
// ref is not found and a name that is not a full ref is refused.
func TestRefHash(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	l := f.open()
	if _, err := l.RefHash(ctx, "refs/heads/main"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("main of an empty repository: %v, want not found", err)
	}
	f.commit("c1", "2026-01-01T10:00:00Z", map[string]string{"a.txt": "1"})
	f.git(f.work, "tag", "-a", "-m", "v1", "v1")
	f.git(f.work, "branch", "packed")
	f.git(f.work, "push", "-q", "origin", "main", "packed", "v1")
	f.git("", "pack-refs", "--all")
	f.commit("c2", "2026-01-02T10:00:00Z", map[string]string{"a.txt": "2"})
	f.push() // main loose again, packed only in packed-refs
	f.git("", "symbolic-ref", "refs/heads/alias", "refs/heads/main")
	for _, name := range []string{"refs/heads/main", "refs/heads/packed", "refs/heads/alias", "refs/tags/v1"} {
		got, err := l.RefHash(ctx, name)
		if want := f.git("", "rev-parse", name); err != nil || got != want {
			t.Errorf("RefHash(%s) = %q, %v; want %s", name, got, err, want)
		}
	}
	if _, err := l.RefHash(ctx, "refs/heads/nope"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a missing ref: %v, want not found", err)
	}
	for _, name := range []string{"main", "HEAD", "", "-refs/heads/main"} {
		if _, err := l.RefHash(ctx, name); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("RefHash(%q): %v, want invalid input", name, err)
		}
	}
}
