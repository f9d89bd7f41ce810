package repository_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/repository"
)

// Benchmarks of the operations behind the repository tools, each at two
// repository sizes to show how the cost grows. Fixtures are built with
// git fast-import. Results: doc/performance.md.

// importRepo creates a repository for b and feeds it a fast-import stream.
func importRepo(b *testing.B, stream []byte) *repository.Local {
	b.Helper()
	l, _ := importRepoStorage(b, stream)
	return l
}

func importRepoStorage(b *testing.B, stream []byte) (*repository.Local, *repository.Storage) {
	b.Helper()
	st, err := repository.OpenStorage(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	// Background housekeeping stops before the directory goes.
	b.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if err := st.Create(ctx, 1, "main"); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("git", "--git-dir", st.Path(1), "fast-import", "--quiet")
	cmd.Stdin = bytes.NewReader(stream)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	l, err := st.Open(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l, st
}

// treeStream is one commit of files files in directories of 100.
func treeStream(files, lines int) []byte {
	var s bytes.Buffer
	fmt.Fprintf(&s, "commit refs/heads/main\ncommitter A <a@example.com> 1767225600 +0000\ndata 4\ninit\n")
	var content strings.Builder
	for i := range lines {
		fmt.Fprintf(&content, "line %d of a source file, long enough to look like code;\n", i+1)
	}
	body := content.String()
	for i := range files {
		fmt.Fprintf(&s, "M 100644 inline dir%03d/file%05d.go\ndata %d\n%s\n", i/100, i, len(body), body)
	}
	return s.Bytes()
}

// historyStream is commits commits on main, each changing one file.
func historyStream(commits int) []byte {
	var s bytes.Buffer
	for i := range commits {
		msg := fmt.Sprintf("change %d", i)
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> %d +0000\ndata %d\n%s\n", i+1, 1767225600+i*60, len(msg), msg)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		c := fmt.Sprintf("%d\n", i)
		fmt.Fprintf(&s, "M 100644 inline f%d.txt\ndata %d\n%s\n", i%50, len(c), c)
	}
	return s.Bytes()
}

func BenchmarkBlob(b *testing.B) {
	for _, lines := range []int{2000, 20000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			l := importRepo(b, treeStream(1, lines))
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// What get_repository_file returns at most: 2,000 lines.
				blob, err := l.Blob(ctx, "main", "dir000/file00000.go", repository.BlobOptions{Lines: 2000})
				if err != nil || blob.ToLine != 2000 {
					b.Fatalf("%v %d", err, blob.ToLine)
				}
			}
		})
	}
}

func BenchmarkTreeRecursive(b *testing.B) {
	for _, files := range []int{1000, 10000} {
		l := importRepo(b, treeStream(files, 1))
		ctx := context.Background()
		b.Run(fmt.Sprintf("files=%d/first_page", files), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := l.Tree(ctx, "main", "", repository.TreeOptions{Recursive: true, Limit: 100}); err != nil || len(p.Entries) != 100 {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%d/last_page", files), func(b *testing.B) {
			after := fmt.Sprintf("dir%03d/file%05d.go", (files-1)/100, files-50)
			b.ReportAllocs()
			for b.Loop() {
				if p, err := l.Tree(ctx, "main", "", repository.TreeOptions{Recursive: true, Limit: 100, After: after}); err != nil || len(p.Entries) != 49 {
					b.Fatal(err, len(p.Entries))
				}
			}
		})
	}
}

func BenchmarkLogFirstPage(b *testing.B) {
	for _, commits := range []int{5000, 50000} {
		l, st := importRepoStorage(b, historyStream(commits))
		ctx := context.Background()
		b.Run(fmt.Sprintf("commits=%d/open_cold", commits), func(b *testing.B) {
			// The first request after a push that added a pack: open parses
			// the pack index, then walks.
			b.ReportAllocs()
			for b.Loop() {
				cold, err := repository.OpenStorage(st.Root())
				if err != nil {
					b.Fatal(err)
				}
				r, err := cold.Open(ctx, 1)
				if err != nil {
					b.Fatal(err)
				}
				if p, err := r.Log(ctx, repository.LogOptions{Limit: 20}); err != nil || len(p.Commits) != 20 {
					b.Fatal(err)
				}
				r.Close()
				cold.Close()
			}
		})
		b.Run(fmt.Sprintf("commits=%d/open_pooled", commits), func(b *testing.B) {
			// Any later request: the idle repository is reused, refs are
			// read from disk again.
			b.ReportAllocs()
			for b.Loop() {
				r, err := st.Open(ctx, 1)
				if err != nil {
					b.Fatal(err)
				}
				if p, err := r.Log(ctx, repository.LogOptions{Limit: 20}); err != nil || len(p.Commits) != 20 {
					b.Fatal(err)
				}
				r.Close()
			}
		})
		b.Run(fmt.Sprintf("commits=%d", commits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := l.Log(ctx, repository.LogOptions{Limit: 20}); err != nil || len(p.Commits) != 20 {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("commits=%d/path", commits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := l.Log(ctx, repository.LogOptions{Limit: 20, Path: "f7.txt"}); err != nil || len(p.Commits) != 20 {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCommitOneFile(b *testing.B) {
	for _, files := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			l := importRepo(b, treeStream(files, 1))
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				_, err := l.CommitFiles(ctx, repository.CommitFilesRequest{
					Branch: "main", Message: "bench", Author: alice,
					Actions: []repository.Action{{Action: "update", FilePath: "dir005/file00500.go", Content: []byte(fmt.Sprintf("v%d\n", i))}},
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
