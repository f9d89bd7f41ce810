package repository_test

import (
	"context"
	"os"
	"strings"
	"testing"
)

// BenchmarkResolveCPU measures, in CPU time, what resolving a name costs
// (Commit: the ref or abbreviated id, then the commit read), the step
// every tool given a ref name takes. GLMCP_BENCH_REPO names the bare
// repository, as for BenchmarkLogPathCPU; GLMCP_BENCH_NAMES the names
// (comma separated, default master, a tag and an abbreviated id).
//
//	GLMCP_BENCH_REPO=~/.cache/glmcp/bench-repo-….git go test ./services/repository -run '^$' -bench ResolveCPU -benchtime 500x
func BenchmarkResolveCPU(b *testing.B) {
	src := os.Getenv("GLMCP_BENCH_REPO")
	if src == "" {
		b.Skip("GLMCP_BENCH_REPO is not set")
	}
	l, _ := openBenchRepo(b, src)
	ctx := context.Background()
	names := strings.Split(os.Getenv("GLMCP_BENCH_NAMES"), ",")
	if names[0] == "" {
		head, err := l.Commit(ctx, "master")
		if err != nil {
			b.Fatal(err)
		}
		names = []string{"master", "v4.5.7", head.ID[:10]}
	}
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				if _, err := l.Commit(ctx, name); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
