package gitlab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// BenchmarkRepoToolsCPU measures whole tools/call runs of the repository
// tools scripts/bench repo compares with git (get_commit with its diff,
// the recursive tree's first page, a merge request's diffs), in CPU time of this process and its
// waited-for git children, on a copy of the bare repository
// GLMCP_BENCH_REPO (such as scripts/bench repo's cache) put in place of
// a demo project's. Run with -cpuprofile to see where a call goes beyond
// the repository layer. Skipped without GLMCP_BENCH_REPO.
//
//	GLMCP_BENCH_REPO=~/.cache/glmcp/bench-repo-….git go test ./services/tools/gitlab -run '^$' -bench RepoToolsCPU -benchtime 100x
func BenchmarkRepoToolsCPU(b *testing.B) {
	src := os.Getenv("GLMCP_BENCH_REPO")
	if src == "" {
		b.Skip("GLMCP_BENCH_REPO is not set")
	}
	w := newWorld(b)
	const project = "gitlab-org/gitlab-mcp"
	dir := storetest.Repositories(b, w.st).Path(w.Projects[project].ID)
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{
		{"clone", "-q", "--mirror", src, dir},
		{"--git-dir", dir, "commit-graph", "write", "--reachable", "--changed-paths", "--split", "--no-progress"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "--git-dir", dir, "rev-list", "--no-merges", "--max-count=1", "--skip=50", "master").Output()
	if err != nil {
		b.Fatal(err)
	}
	normal := strings.TrimSpace(string(out))
	id := &models.Identity{User: w.Alice, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
	mr := w.ok(b, w.Alice, "save_merge_request", map[string]any{"project_id": project, "title": "Bench: review topic",
		"source_branch": "review/bench-topic", "target_branch": "master"})
	iid := fmt.Sprint(mr["iid"])
	mrArgs := `{"project_id":"` + project + `","merge_request_iid":` + iid + `,"include":["diffs"],"detail":`
	for _, bc := range []struct{ name, tool string }{
		{"merge_request_stats", "get_merge_request " + mrArgs + `"stats"}`},
		{"merge_request_full_patch", "get_merge_request " + mrArgs + `"full_patch","diffs_first":100}`},
		{"get_commit_full_patch", `get_commit {"project_id":"` + project + `","commit_sha":"` + normal + `","include":["diff"],"diff_detail":"full_patch"}`},
		{"get_commit_stats", `get_commit {"project_id":"` + project + `","commit_sha":"` + normal + `","include":["diff"],"diff_detail":"stats"}`},
		{"tree_first_page", `list_repository_tree {"project_id":"` + project + `","recursive":true}`},
		{"get_commit_master", `get_commit {"project_id":"` + project + `","commit_sha":"master"}`},
	} {
		tool, args, _ := strings.Cut(bc.tool, " ")
		req := tools.CallRequest{Scope: models.Scope{Edition: models.EditionEE, Identity: id}, Name: tool, Arguments: json.RawMessage(args)}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				res, err := w.svc.Call(context.Background(), req)
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %+v", tool, err, res)
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
