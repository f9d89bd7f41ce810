package gitlab_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// BenchmarkGetIssue measures get_issue through the tool service (schema
// validation, project resolution, permission checks, three store reads and
// the JSON rendering) on the test store.
func BenchmarkGetIssue(b *testing.B) {
	w := newWorld(b)
	f := w.fixture(b)
	e, ok := w.snap.Lookup("get_issue")
	if !ok {
		b.Fatal("get_issue not in the catalog")
	}
	args := json.RawMessage(`{"id":"gitlab-org/gitlab-mcp","issue_iid":` + itoa(f.Issue.IID) + `}`)
	id := &models.Identity{User: w.Bob, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Run(ctx, &tools.Call{Identity: id, Edition: models.EditionCE, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("get_issue: %v %v", err, res)
		}
	}
}

// logLines writes numbered log lines forever (wrap it in io.LimitReader):
// a job log of any size without holding it in memory.
type logLines struct {
	n   int
	buf []byte
}

func (l *logLines) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		l.n++
		l.buf = fmt.Appendf(l.buf[:0], "%08d $ go test ./... -run TestEverything # ok, next line\n", l.n)
	}
	k := copy(p, l.buf)
	l.buf = l.buf[k:]
	return k, nil
}

// BenchmarkGetJobLogTail measures get_job with include log reading the last
// 64 KB of a job log of 5 MB and of 50 MB, through the tool service: the
// store reads only the chunks the window covers (128 KiB each), so time and
// memory per call are the same for both sizes.
func BenchmarkGetJobLogTail(b *testing.B) {
	w := newWorld(b)
	ctx := context.Background()
	e, ok := w.snap.Lookup("get_job")
	if !ok {
		b.Fatal("get_job not in the catalog")
	}
	mcp := w.project("gitlab-org/gitlab-mcp")
	id := &models.Identity{User: w.Alice, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
	const window = 64 << 10
	for _, size := range []int64{5 << 20, 50 << 20} {
		p := &models.Pipeline{ProjectID: mcp.ID, SHA: strings.Repeat("a", 40), Ref: "main", Status: models.StatusFailed,
			Jobs: []models.CIJob{{Name: "test", Status: models.StatusFailed}}}
		if err := w.st.CI.CreatePipeline(ctx, p); err != nil {
			b.Fatal(err)
		}
		trace := &models.JobArtifact{JobID: p.Jobs[0].ID, FileType: models.ArtifactTrace, FileName: "job.log"}
		if err := w.st.CI.WriteJobArtifact(ctx, trace, io.LimitReader(&logLines{}, size)); err != nil {
			b.Fatal(err)
		}
		args := json.RawMessage(fmt.Sprintf(`{"id":"gitlab-org/gitlab-mcp","job_id":%d,"include":["log"],"byte_offset":%d,"byte_limit":%d}`,
			p.Jobs[0].ID, size-window, window))
		call := &tools.Call{Identity: id, Edition: models.EditionCE, Arguments: args}
		res, err := e.Run(ctx, call)
		if err != nil || res.IsError {
			b.Fatalf("get_job: %v %+v", err, res)
		}
		var got struct {
			Log struct {
				Content string `json:"content"`
			} `json:"log"`
		}
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil || len(got.Log.Content) != window {
			b.Fatalf("get_job returned %d bytes of log (%v), want %d", len(got.Log.Content), err, window)
		}
		b.Run(fmt.Sprintf("last_64KB_of_%dMB", size>>20), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res, err := e.Run(ctx, call); err != nil || res.IsError {
					b.Fatalf("get_job: %v %v", err, res)
				}
			}
		})
	}
}

// BenchmarkAcceptMergeRequest measures accept_merge_request through the
// tool service: resolve and lock the merge request, compare the branches
// in git, merge (three-way tree merge, merge commit, compare-and-swap of
// the target branch with fsync), record the merge, on repositories of
// growing width (files) and depth (commits). Each iteration merges a new
// branch of one commit changing one file, made (untimed) from the target's
// current head. Results: doc/performance.md.
func BenchmarkAcceptMergeRequest(b *testing.B) {
	for _, size := range []struct{ files, commits int }{{1000, 100}, {10000, 100}, {1000, 20000}} {
		b.Run(fmt.Sprintf("files=%d/commits=%d", size.files, size.commits), func(b *testing.B) {
			w := newWorld(b)
			ctx := context.Background()
			g, err := w.st.Groups.FindGroupByFullPath(ctx, "gitlab-org")
			if err != nil {
				b.Fatal(err)
			}
			p := &models.Project{Name: "bench", Path: "bench", NamespaceID: g.ID, Visibility: models.VisibilityPublic}
			if err := w.st.Projects.CreateProject(ctx, p); err != nil {
				b.Fatal(err)
			}
			repos := storetest.Repositories(b, w.st)
			cmd := exec.Command("git", "--git-dir", repos.Path(p.ID), "fast-import", "--quiet")
			cmd.Stdin = bytes.NewReader(benchHistory(size.files, size.commits))
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("fast-import: %v\n%s", err, out)
			}
			e, _ := w.snap.Lookup("accept_merge_request")
			id := &models.Identity{User: w.Root, Method: models.MethodPAT, Scopes: []string{models.ScopeAPI}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				repo, err := repos.Repository(ctx, p.ID)
				if err != nil {
					b.Fatal(err)
				}
				branch := fmt.Sprintf("bench/%d", i)
				c, err := repo.CommitFiles(ctx, repository.CommitFilesRequest{Branch: branch, StartBranch: "main", Message: "change",
					Author:  repository.Signature{Name: "Alice", Email: "alice@example.com"},
					Actions: []repository.Action{{Action: "update", FilePath: fmt.Sprintf("dir%03d/file%05d.go", i%10, i%10*100), HasContent: true, Content: []byte(fmt.Sprintf("v%d\n", i))}}})
				repo.Close()
				if err != nil {
					b.Fatal(err)
				}
				mr := &models.MergeRequest{ProjectID: p.ID, Title: "Bench", SourceBranch: branch, TargetBranch: "main", AuthorID: w.Root.ID}
				if err := w.st.MergeRequests.CreateMergeRequest(ctx, mr); err != nil {
					b.Fatal(err)
				}
				args := json.RawMessage(fmt.Sprintf(`{"project_id":%d,"merge_request_iid":%d,"sha":%q}`, p.ID, mr.IID, c.ID))
				b.StartTimer()
				res, err := e.Run(ctx, &tools.Call{Identity: id, Edition: models.EditionCE, Arguments: args})
				if err != nil || res.IsError {
					b.Fatalf("accept_merge_request: %v %+v", err, res)
				}
			}
		})
	}
}

// benchHistory is a fast-import stream: files files in directories of 100
// in the first commit, then commits-1 commits each changing one file.
func benchHistory(files, commits int) []byte {
	var s bytes.Buffer
	fmt.Fprintf(&s, "commit refs/heads/main\nmark :1\ncommitter A <a@example.com> 1767225600 +0000\ndata 4\ninit\n")
	for i := range files {
		body := fmt.Sprintf("package dir%03d\n\n// File %d.\nvar X%d = %d\n", i/100, i, i, i)
		fmt.Fprintf(&s, "M 100644 inline dir%03d/file%05d.go\ndata %d\n%s\n", i/100, i, len(body), body)
	}
	for i := 1; i < commits; i++ {
		msg := fmt.Sprintf("change %d", i)
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> %d +0000\ndata %d\n%s\nfrom :%d\n", i+1, 1767225600+i*60, len(msg), msg, i)
		c := fmt.Sprintf("%d\n", i)
		fmt.Fprintf(&s, "M 100644 inline history/f%d.txt\ndata %d\n%s\n", i%50, len(c), c)
	}
	return s.Bytes()
}
