package gitlab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
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
	id := &auth.Identity{User: w.Bob, Method: auth.MethodPAT, Scopes: []string{models.ScopeAPI}}
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
	id := &auth.Identity{User: w.Alice, Method: auth.MethodPAT, Scopes: []string{models.ScopeAPI}}
	const window = 64 << 10
	for _, size := range []int64{5 << 20, 50 << 20} {
		p := &models.Pipeline{ProjectID: mcp.ID, SHA: strings.Repeat("a", 40), Ref: "main", Status: models.StatusFailed,
			Jobs: []models.CIJob{{Name: "test", Status: models.StatusFailed}}}
		if err := w.st.CreatePipeline(ctx, p); err != nil {
			b.Fatal(err)
		}
		trace := &models.JobArtifact{JobID: p.Jobs[0].ID, FileType: models.ArtifactTrace, FileName: "job.log"}
		if err := w.st.WriteJobArtifact(ctx, trace, io.LimitReader(&logLines{}, size)); err != nil {
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
