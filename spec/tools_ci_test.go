package spec

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// The 19.5 ci tools over HTTP: list_pipelines, get_pipeline, save_pipeline,
// manage_pipeline, get_job (and get_job_log) and get_artifact_file, on the
// demo world's failed orbit pipeline and its test job's log and artifacts.

// toolsJobID returns the id of the job named name of pipeline pipelineID.
func toolsJobID(t testing.TB, h *harness, pipelineID int64, name string) int64 {
	t.Helper()
	id := storetest.Int(t, h.Env.Store, "SELECT id FROM ci_jobs WHERE pipeline_id = ? AND name = ? AND NOT retried", pipelineID, name)
	if id == 0 {
		t.Fatalf("no job %s in pipeline %d", name, pipelineID)
	}
	return id
}

func TestTools_pipelinesRead(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	failed := toolsPipelineID(t, h, "gitlab-org/orbit", "failed")
	test := toolsJobID(t, h, failed, "test")
	orbit := map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed}

	t.Run("list_pipelines", func(t *testing.T) {
		for _, g := range h.groups() {
			sc := h.toolsRead(t, g, "alice", "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp"})
			if got := toolsField(toolsItems(t, sc), "status"); strings.Join(got, " ") != "success success running" {
				t.Errorf("statuses, newest first = %v", got)
			}
		}
		sc := h.toolsRead(t, ce, "bob", "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp", "ref": "main", "status": "success"})
		if n := len(toolsItems(t, sc)); n != 1 {
			t.Errorf("main+success: %d pipelines", n)
		}
		p1 := h.toolsRead(t, ce, "bob", "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp", "per_page": 2, "order_by": "id", "sort": "asc"})
		toolsExpectField(t, p1, 2, "pageInfo", "next_page")
		p2 := h.toolsRead(t, ce, "bob", "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp", "per_page": 2, "page": 2, "order_by": "id", "sort": "asc"})
		toolsExpectField(t, p2, nil, "pageInfo", "next_page")
		if n := len(toolsItems(t, p2)); n != 1 {
			t.Errorf("page 2: %d pipelines", n)
		}
		h.toolsInvalid(t, ce, "bob", "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp", "status": "done"}, "/status")
		h.toolsInvalid(t, ce, "bob", "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp", "created_after": "yesterday"}, "created_after")
		h.toolsSameAsMissing(t, ce, "carol", "list_pipelines", map[string]any{"id": "acme/secret-plans"}, map[string]any{"id": "acme/nope"})
		h.toolsBlocked(t, ce, "list_pipelines", map[string]any{"id": "gitlab-org/gitlab-mcp"})
	})

	t.Run("get_pipeline with facets", func(t *testing.T) {
		sc := h.toolsRead(t, ce, "alice", "get_pipeline", orbit)
		toolsExpectField(t, sc, "failed", "status")
		if sc["jobs"] != nil || sc["page_info"] != nil {
			t.Errorf("no facet asked, got %v", sc)
		}
		jobs := h.toolsRead(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{"jobs"}, "job_status", "failed"))
		toolsExpectField(t, jobs, "test", "jobs", 0, "name")
		toolsExpectField(t, jobs, false, "page_info", "has_next_page")
		one := h.toolsRead(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{"jobs"}, "first", 1))
		toolsExpectField(t, one, "build", "jobs", 0, "name")
		toolsExpectField(t, one, true, "page_info", "has_next_page")
		next := h.toolsRead(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{"jobs"}, "first", 1, "after", toolsDig(one, "page_info", "end_cursor")))
		toolsExpectField(t, next, "test", "jobs", 0, "name")
		arts := h.toolsRead(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{"artifacts"}))
		toolsExpectField(t, arts, "artifacts.zip", "artifacts", 0, "name")
		toolsExpectField(t, arts, "test", "artifacts", 0, "job_name")
		toolsExpectField(t, arts, "archive", "artifacts", 0, "file_type")
		for _, f := range []string{"downstream_pipelines", "bridge_jobs"} {
			toolsExpectField(t, h.toolsRead(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{f})), "[]", f)
		}
		h.toolsInvalid(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{"jobs", "artifacts"}), "/include")
		h.toolsInvalid(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "job_status", "failed"), "job_status applies only")
		h.toolsInvalid(t, ce, "alice", "get_pipeline", overrideArgs(orbit, "include", []any{"jobs"}, "after", "x.y"), "not a cursor")
		h.toolsFailWith(t, ce, "alice", "get_pipeline", map[string]any{"id": "gitlab-org/gitlab-mcp", "pipeline_id": failed}, "404 Pipeline Not Found")
		h.toolsSameAsMissing(t, ce, "carol", "get_pipeline", overrideArgs(orbit, "id", "acme/secret-plans"), overrideArgs(orbit, "id", "acme/nope"))
		h.toolsBlocked(t, ce, "get_pipeline", orbit)
	})

	t.Run("get_job and its log", func(t *testing.T) {
		job := map[string]any{"id": "gitlab-org/orbit", "job_id": test}
		sc := h.toolsRead(t, ce, "bob", "get_job", job)
		toolsExpectField(t, sc, "failed", "status")
		if sc["log"] != nil {
			t.Errorf("log without include: %v", sc["log"])
		}
		log := h.toolsRead(t, ce, "bob", "get_job", overrideArgs(job, "include", []any{"log"}))
		content := fmt.Sprint(toolsDig(log, "log", "content"))
		if !strings.Contains(content, "WARNING: DATA RACE") || !strings.HasSuffix(content, "ERROR: Job failed: exit code 1\n") {
			t.Errorf("log = %q", content)
		}
		total := toolsDig(log, "log", "metadata", "total_bytes")
		toolsExpectField(t, log, false, "log", "metadata", "truncated")
		win := h.toolsRead(t, ce, "bob", "get_job", overrideArgs(job, "include", []any{"log"}, "byte_offset", 10, "byte_limit", 20))
		toolsExpectField(t, win, content[10:30], "log", "content")
		toolsExpectField(t, win, 30, "log", "metadata", "returned", "end")
		toolsExpectField(t, win, true, "log", "metadata", "truncated")
		if !strings.Contains(fmt.Sprint(toolsDig(win, "log", "system_instruction")), `{"byte_offset": 30}`) {
			t.Errorf("system_instruction = %v", toolsDig(win, "log", "system_instruction"))
		}
		past := h.toolsRead(t, ce, "bob", "get_job", overrideArgs(job, "include", []any{"log"}, "byte_offset", 1_000_000))
		toolsExpectField(t, past, "", "log", "content")
		toolsExpectField(t, past, total, "log", "metadata", "returned", "start")
		// get_job_log always returns the log.
		alias := h.toolsRead(t, ce, "bob", "get_job_log", job)
		toolsExpectField(t, alias, content, "log", "content")
		arts := h.toolsRead(t, ce, "bob", "get_job", overrideArgs(job, "include", []any{"artifacts"}))
		toolsExpectField(t, arts, "archive", "artifacts", 0, "file_type")

		h.toolsInvalid(t, ce, "bob", "get_job", overrideArgs(job, "include", []any{"log"}, "byte_limit", 512_001), "/byte_limit")
		h.toolsInvalid(t, ce, "bob", "get_job", overrideArgs(job, "include", []any{"log"}, "byte_offset", -1), "/byte_offset")
		h.toolsInvalid(t, ce, "bob", "get_job", overrideArgs(job, "byte_limit", 10), "apply only when include")
		h.toolsFailWith(t, ce, "bob", "get_job", map[string]any{"id": "gitlab-org/gitlab-mcp", "job_id": test}, "404 Job Not Found")
		h.toolsSameAsMissing(t, ce, "carol", "get_job", overrideArgs(job, "id", "acme/secret-plans"), overrideArgs(job, "id", "acme/nope"))
		h.toolsBlocked(t, ce, "get_job", job)
	})

	t.Run("get_artifact_file", func(t *testing.T) {
		file := map[string]any{"project_id": "gitlab-org/orbit", "job_id": test, "artifact_path": "report.xml"}
		sc := h.toolsRead(t, ce, "bob", "get_artifact_file", file)
		if !strings.Contains(fmt.Sprint(sc["content"]), "TestIndexConcurrentWalks") {
			t.Errorf("report.xml = %v", sc["content"])
		}
		byURL := h.toolsRead(t, ce, "bob", "get_artifact_file", map[string]any{
			"url": h.Cfg.PublicURL + fmt.Sprintf("/gitlab-org/orbit/-/jobs/%d", test), "artifact_path": "coverage/summary.txt", "byte_offset": 6, "byte_limit": 5})
		toolsExpectField(t, byURL, "91.2%", "content")
		toolsExpectField(t, byURL, true, "metadata", "truncated")
		h.toolsInvalid(t, ce, "bob", "get_artifact_file", overrideArgs(file, "artifact_path", "nope.txt"), "not found in the artifacts archive", "report.xml")
		h.toolsInvalid(t, ce, "bob", "get_artifact_file", overrideArgs(file, "artifact_path", "../etc/passwd"), "path traversal")
		h.toolsInvalid(t, ce, "bob", "get_artifact_file", overrideArgs(file, "byte_limit", 1_048_577), "/byte_limit")
		h.toolsInvalid(t, ce, "bob", "get_artifact_file", overrideArgs(file, "job_id", toolsJobID(t, h, failed, "lint")), "has no artifacts archive")
		h.toolsInvalid(t, ce, "bob", "get_artifact_file", overrideArgs(file, "url", "https://x/gitlab-org/orbit/-/jobs/1"), "not both")
		h.toolsSameAsMissing(t, ce, "carol", "get_artifact_file", overrideArgs(file, "project_id", "acme/secret-plans"), overrideArgs(file, "project_id", "acme/nope"))
		h.toolsBlocked(t, ce, "get_artifact_file", file)
	})
}

func TestTools_pipelinesWrite(t *testing.T) {
	h := startServer(t, withEE())
	ce := h.groups()[0]
	failed := toolsPipelineID(t, h, "gitlab-org/orbit", "failed")
	orbit := map[string]any{"project_id": "gitlab-org/orbit", "pipeline_id": failed}

	t.Run("refused writes change nothing", func(t *testing.T) {
		h.toolsFailWith(t, ce, "bob", "save_pipeline", overrideArgs(orbit, "action", "retry"), "404 Pipeline Not Found")
		h.toolsFailWith(t, ce, "bob", "save_pipeline", map[string]any{"project_id": "gitlab-org/orbit", "ref": "main"},
			"Forbidden: you need at least the Developer role in project gitlab-org/orbit to run pipelines")
		h.toolsSameAsMissing(t, ce, "carol", "save_pipeline", map[string]any{"project_id": "acme/secret-plans", "ref": "main"}, map[string]any{"project_id": "acme/nope", "ref": "main"})
		h.toolsInvalid(t, ce, "alice", "save_pipeline", orbit, "action is required")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", overrideArgs(orbit, "action", "update"), "Provide name")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", overrideArgs(orbit, "action", "delete"), "/action")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", map[string]any{"project_id": "gitlab-org/orbit", "ref": "no-such-branch"}, "is not a branch or tag")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", map[string]any{"project_id": "gitlab-org/orbit"}, "ref is required")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", map[string]any{"project_id": "gitlab-org/orbit", "ref": "main",
			"variables": []any{map[string]any{"key": "A", "value": "1"}, map[string]any{"key": "A", "value": "2"}}}, "given twice")
		h.toolsFailWith(t, ce, "alice", "manage_pipeline", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed},
			"Forbidden: you need the Owner role in project gitlab-org/orbit to delete pipelines")
		h.toolsFailWith(t, ce, "bob", "manage_pipeline", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed, "name": "x"},
			"Forbidden: you need at least the Developer role in project gitlab-org/orbit to update pipelines")
		h.toolsBlocked(t, ce, "save_pipeline", overrideArgs(orbit, "action", "retry"))
	})

	t.Run("run, retry, cancel, rename, delete", func(t *testing.T) {
		created := h.toolsWrite(t, ce, modern, "alice", "save_pipeline", map[string]any{"url": h.Cfg.PublicURL + "/gitlab-org/orbit",
			"ref": "main", "variables": []any{map[string]any{"key": "DEPLOY", "value": "no", "variable_type": "env_var"}}})
		toolsExpectField(t, created, "created", "status")
		toolsExpectField(t, created, "create", "action")
		retried := h.toolsWrite(t, ce, legacy, "alice", "save_pipeline", overrideArgs(orbit, "action", "retry"))
		toolsExpectField(t, retried, "pending", "status")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", overrideArgs(orbit, "action", "retry"), "no failed or canceled job")
		toolsExpectField(t, h.toolsWrite(t, ce, modern, "alice", "save_pipeline", overrideArgs(orbit, "action", "cancel")), "canceled", "status")
		h.toolsInvalid(t, ce, "alice", "save_pipeline", overrideArgs(orbit, "action", "cancel"), "cannot be canceled")
		toolsExpectField(t, h.toolsWrite(t, ce, modern, "alice", "save_pipeline", overrideArgs(orbit, "action", "update", "name", "Nightly")), "Nightly", "name")
		toolsExpectField(t, h.toolsWrite(t, ce, legacy, "alice", "manage_pipeline", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed, "name": "Renamed"}), "Renamed", "name")
		gone := h.toolsWrite(t, ce, modern, "root", "manage_pipeline", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed})
		toolsExpectField(t, gone, "deleted", "status")
		h.toolsFailWith(t, ce, "root", "get_pipeline", map[string]any{"id": "gitlab-org/orbit", "pipeline_id": failed}, "404 Pipeline Not Found")
		if chunks := storetest.Int(t, h.Env.Store, "SELECT COUNT(*) FROM ci_job_artifact_chunks"); chunks != 0 {
			t.Errorf("%d artifact chunks left after deleting the only pipeline with files", chunks)
		}
	})
}

// TestTools_bigJobLog reads a log of several chunks by ranges, over HTTP.
func TestTools_bigJobLog(t *testing.T) {
	h := startServer(t)
	ce := h.groups()[0]
	failed := toolsPipelineID(t, h, "gitlab-org/orbit", "failed")
	job := toolsJobID(t, h, failed, "lint")
	var log bytes.Buffer
	for i := 0; log.Len() < 700_000; i++ {
		fmt.Fprintf(&log, "line %06d ünïcode\n", i)
	}
	ctx := context.Background()
	if err := h.Env.Store.CI.WriteJobArtifact(ctx, &models.JobArtifact{JobID: job, FileType: models.ArtifactTrace, FileName: "job.log"}, bytes.NewReader(log.Bytes())); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"id": "gitlab-org/orbit", "job_id": job, "include": []any{"log"}}
	first := h.toolsRead(t, ce, "alice", "get_job", args)
	toolsExpectField(t, first, 512000, "log", "metadata", "returned", "end")
	toolsExpectField(t, first, log.Len(), "log", "metadata", "total_bytes")
	tail := h.toolsRead(t, ce, "alice", "get_job", overrideArgs(args, "byte_offset", log.Len()-64))
	if got := fmt.Sprint(toolsDig(tail, "log", "content")); got != string(log.Bytes()[log.Len()-64:]) {
		t.Errorf("tail = %q", got)
	}
	// A window cut inside a two-byte character comes back as valid UTF-8.
	at := bytes.Index(log.Bytes(), []byte("ü")) + 1
	cut := h.toolsRead(t, ce, "alice", "get_job", overrideArgs(args, "byte_offset", at, "byte_limit", 3))
	if s := fmt.Sprint(toolsDig(cut, "log", "content")); !strings.HasPrefix(s, "\uFFFD") {
		t.Errorf("cut window = %q", s)
	}
}
