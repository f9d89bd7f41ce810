package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure ci record stores a finished pipeline with its jobs, log and
// artifacts archive, and prints its id.
func TestCIRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.createUser(t, "erin")
		b.mustRun(t, "projects", "create", "--path", "acme/rockets")
		dir := t.TempDir()
		logFile := filepath.Join(dir, "test.log")
		log := strings.Repeat("ok line\n", 40000) + "FAIL: TestLaunch\n"
		if err := os.WriteFile(logFile, []byte(log), 0o600); err != nil {
			t.Fatal(err)
		}
		var zbuf bytes.Buffer
		zw := zip.NewWriter(&zbuf)
		w, _ := zw.Create("report.txt")
		_, _ = w.Write([]byte("1 failure\n"))
		_ = zw.Close()
		zipFile := filepath.Join(dir, "a.zip")
		if err := os.WriteFile(zipFile, zbuf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		out := b.mustRun(t, "ci", "record", "--project", "acme/rockets", "--ref", "main", "--user", "erin",
			"--job", "build:success", "--job", "test:failed:"+logFile, "--artifacts", "test:"+zipFile)
		id, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		if err != nil {
			t.Fatalf("stdout = %q, want the pipeline id", out)
		}
		s := b.store(t)
		ctx := context.Background()
		p, _ := s.Projects.FindProjectByPath(ctx, "acme/rockets")
		pl, err := s.CI.LoadPipeline(ctx, p.ID, id)
		if err != nil || pl.Status != models.StatusFailed || pl.Ref != "main" || pl.UserID == nil || pl.FinishedAt == nil {
			t.Fatalf("pipeline = %+v, %v", pl, err)
		}
		jobs, _, _ := s.CI.PageJobs(ctx, models.JobQuery{PipelineID: id, Limit: 10})
		if len(jobs) != 2 || jobs[1].Name != "test" || jobs[1].Status != models.StatusFailed {
			t.Fatalf("jobs = %+v", jobs)
		}
		trace, err := s.CI.FindJobArtifact(ctx, jobs[1].ID, models.ArtifactTrace)
		if err != nil || trace.Size != int64(len(log)) {
			t.Fatalf("log = %+v, %v", trace, err)
		}
		tail, _ := s.CI.ReadArtifactRange(ctx, trace, trace.Size-17, 100)
		if string(tail) != "FAIL: TestLaunch\n" {
			t.Errorf("log tail = %q", tail)
		}
		if a, err := s.CI.FindJobArtifact(ctx, jobs[1].ID, models.ArtifactArchive); err != nil || a.Size != int64(zbuf.Len()) || a.FileFormat != "zip" {
			t.Errorf("archive = %+v, %v", a, err)
		}
	})
}

// Ensure ci record refuses bad input with a clear message and records
// nothing.
func TestCIRecord_invalid(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		b.mustRun(t, "projects", "create", "--path", "acme/rockets")
		notZip := filepath.Join(t.TempDir(), "x.zip")
		_ = os.WriteFile(notZip, []byte("plain"), 0o600)
		for _, tc := range []struct {
			want []string
			args []string
		}{
			{[]string{"no project"}, []string{"--project", "acme/none", "--ref", "main", "--job", "a:success"}},
			{[]string{"NAME:STATUS"}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a"}},
			{[]string{"status \"running\""}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a:running"}},
			{[]string{"given twice"}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a:success", "--job", "a:failed"}},
			{[]string{"no such file"}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a:failed:/nope.log"}},
			{[]string{"not a zip"}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a:failed", "--artifacts", "a:" + notZip}},
			{[]string{"a job given with --job"}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a:failed", "--artifacts", "b:" + notZip}},
			{[]string{"no user"}, []string{"--project", "acme/rockets", "--ref", "main", "--job", "a:failed", "--user", "ghost"}},
		} {
			b.wantErr(t, tc.want, append([]string{"ci", "record"}, tc.args...)...)
		}
		if n := count(t, b.store(t), &models.Pipeline{}); n != 0 {
			t.Errorf("%d pipelines recorded by refused commands", n)
		}
	})
}
