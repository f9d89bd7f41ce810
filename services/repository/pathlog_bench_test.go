package repository_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/repository"
)

// BenchmarkLogPathCPU measures, in CPU time (user + system, of this
// process and of its git children: what the machine's load does not
// inflate as it does wall time), a first page of Log with a path on an
// existing repository, next to the git log command that answers the same
// question. GLMCP_BENCH_REPO names the bare repository (such as the one
// scripts/bench repo caches), GLMCP_BENCH_PATHS the paths (comma
// separated, default sequencer.c) and GLMCP_BENCH_REF the branch (default
// master); it is copied (hard links) and given the commit-graph
// housekeeping writes. Skipped without GLMCP_BENCH_REPO.
//
//	GLMCP_BENCH_REPO=~/.cache/glmcp/bench-repo-….git go test ./services/repository -run '^$' -bench LogPathCPU -benchtime 200x
func BenchmarkLogPathCPU(b *testing.B) {
	src := os.Getenv("GLMCP_BENCH_REPO")
	if src == "" {
		b.Skip("GLMCP_BENCH_REPO is not set")
	}
	ref := os.Getenv("GLMCP_BENCH_REF")
	if ref == "" {
		ref = "master"
	}
	paths := strings.Split(os.Getenv("GLMCP_BENCH_PATHS"), ",")
	if paths[0] == "" {
		paths = []string{"sequencer.c"}
	}
	l, dir := openBenchRepo(b, src)
	ctx := context.Background()
	// list_commits resolves the ref once (the page's cursor keeps the
	// commit id) and logs from the commit id.
	head, err := l.Commit(ctx, ref)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range paths {
		b.Run(p+"/glmcp", func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				if _, err := l.Log(ctx, repository.LogOptions{Ref: head.ID, Path: p, Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
		b.Run(p+"/git", func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				cmd := exec.Command("git", "--git-dir", dir, "log", "-20", "--format=%H%x00%P%x00%T%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B", ref, "--", p)
				if _, err := cmd.Output(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time this process and its waited-for children used.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(children.Utime) + d(children.Stime)
}

// openBenchRepo copies the bare repository src (hard links) into a
// storage, writes the commit-graph housekeeping writes and opens it.
func openBenchRepo(b *testing.B, src string) (*repository.Local, string) {
	st, err := repository.OpenStorage(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	dir := st.Path(1)
	for _, args := range [][]string{
		{"clone", "-q", "--mirror", src, dir},
		{"--git-dir", dir, "commit-graph", "write", "--reachable", "--changed-paths", "--split", "--no-progress"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	l, err := st.Open(context.Background(), 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l, dir
}
