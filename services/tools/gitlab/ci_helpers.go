package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// ciStatuses are GitLab's pipeline and job statuses the store knows.
var ciStatuses = []string{"created", "waiting_for_resource", "preparing", "waiting_for_callback", "pending", "running",
	"success", "failed", "canceling", "canceled", "skipped", "manual", "scheduled"}

// pipelineSources are GitLab's pipeline sources (Ci::Pipeline.sources).
var pipelineSources = []string{"unknown", "push", "web", "trigger", "schedule", "api", "external", "pipeline",
	"chat", "webide", "merge_request_event", "external_pull_request_event", "parent_pipeline",
	"ondemand_dast_scan", "ondemand_dast_validation", "security_orchestration_policy", "container_registry_push",
	"duo_workflow", "pipeline_execution_policy_schedule"}

// ciTarget declares that argument arg names a CI tool's project (name,
// when set, reads it instead), whose code the caller must read: a hidden
// one's object (what: "Pipeline", "Job") reads as missing. It builds the
// Target at registration, so it takes what the tools share.
func ciTarget(g *gitlab, arg string, name projectName, what string) *tools.Target {
	if name == nil {
		name = argProject(arg)
	}
	return g.namedProject(access.ReadCode, name, nil, func(*models.Project) error { return notFound(what) })
}

// pipelineLoadStore and jobLoadStore load a CI tool's object.
type pipelineLoadStore interface {
	LoadPipeline(ctx context.Context, projectID, id int64) (*models.Pipeline, error)
}

type jobLoadStore interface {
	LoadJob(ctx context.Context, projectID, id int64) (*models.CIJob, error)
}

// targetPipeline and targetJob load object id of the project the service
// resolved for call (its ciTarget), or return the failure of that
// resolution; a missing one is not found.
func targetPipeline(ctx context.Context, st pipelineLoadStore, call *tools.Call, id int64) (*projectAccess, *models.Pipeline, error) {
	return loadInTarget(ctx, call, id, "Pipeline", st.LoadPipeline)
}

func targetJob(ctx context.Context, st jobLoadStore, call *tools.Call, id int64) (*projectAccess, *models.CIJob, error) {
	return loadInTarget(ctx, call, id, "Job", st.LoadJob)
}

func loadInTarget[T any](ctx context.Context, call *tools.Call, id int64, what string,
	load func(ctx context.Context, projectID, id int64) (T, error)) (*projectAccess, T, error) {
	var zero T
	pa, err := targetProject(call)
	if err != nil {
		return nil, zero, err
	}
	obj, err := load(ctx, pa.project.ID, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, zero, notFound(what)
	}
	if err != nil {
		return nil, zero, err
	}
	return pa, obj, nil
}

// pipelineURL and jobURL read only the base URL: links renders them.
func (l links) pipelineURL(p *models.Project, id int64) string {
	return l.projectURL(p) + "/-/pipelines/" + strconv.FormatInt(id, 10)
}

func (l links) jobURL(p *models.Project, id int64) string {
	return l.projectURL(p) + "/-/jobs/" + strconv.FormatInt(id, 10)
}

// ciJobJSON is a job as get_pipeline and get_job show it.
type ciJobJSON struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"`
	Stage        string `json:"stage"`
	AllowFailure bool   `json:"allow_failure"`
	WebURL       string `json:"web_url"`
}

func (l links) ciJob(p *models.Project, j *models.CIJob) ciJobJSON {
	return ciJobJSON{ID: j.ID, Name: j.Name, Status: j.Status, Stage: j.Stage, AllowFailure: j.AllowFailure, WebURL: l.jobURL(p, j.ID)}
}

// artifactJSON is an artifact as get_job and get_pipeline list it.
type artifactJSON struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	Size     int64   `json:"size"`
	FileType string  `json:"file_type"`
	ExpireAt *string `json:"expire_at"`
	Expired  bool    `json:"expired"`
	JobID    int64   `json:"job_id,omitempty"`
	JobName  string  `json:"job_name,omitempty"`
}

func artifactOf(a *models.JobArtifact) artifactJSON {
	return artifactJSON{ID: a.ID, Name: a.FileName, Size: a.Size, FileType: a.FileType,
		ExpireAt: apiTimePtr(a.ExpireAt), Expired: a.Expired(time.Now())}
}

// toValidUTF8 turns bytes into a string, replacing invalid sequences (a
// window cut inside a character) with U+FFFD, as GitLab scrubs them.
func toValidUTF8(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// byteWindow is the metadata of a byte range read (GitLab's get_job log
// and get_artifact_file).
type byteWindow struct {
	TotalBytes int64         `json:"total_bytes"`
	Returned   byteRangeJSON `json:"returned"`
	Truncated  bool          `json:"truncated"`
}

type byteRangeJSON struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// artifactRangeStore reads a byte range of an artifact.
type artifactRangeStore interface {
	ReadArtifactRange(ctx context.Context, a *models.JobArtifact, offset, limit int64) ([]byte, error)
}

// readWindow reads limit bytes of a from offset and describes the window;
// the content is made valid UTF-8 (a window can split a character).
func readWindow(ctx context.Context, st artifactRangeStore, a *models.JobArtifact, offset, limit int64, what string) (obj, error) {
	data, err := st.ReadArtifactRange(ctx, a, offset, limit)
	if err != nil {
		return nil, err
	}
	start := min(offset, a.Size)
	end := start + int64(len(data))
	w := byteWindow{TotalBytes: a.Size, Returned: byteRangeJSON{Start: start, End: end}, Truncated: end < a.Size}
	out := obj{"metadata": w, "content": toValidUTF8(data)}
	if w.Truncated {
		out["system_instruction"] = what + " truncated. Remaining: " + strconv.FormatInt(a.Size-end, 10) +
			" bytes. Call again with {\"byte_offset\": " + strconv.FormatInt(end, 10) + "}."
	}
	return out, nil
}

func destructiveTool(title string) models.ToolAnnotations {
	return models.ToolAnnotations{Title: title, ReadOnlyHint: false, DestructiveHint: ptr(true)}
}

// pipelineData is a pipeline as get_pipeline shows it.
func (l links) pipelineData(proj *models.Project, p *models.Pipeline) obj {
	out := obj{"id": p.ID, "iid": p.IID, "status": p.Status, "ref": p.Ref, "sha": p.SHA, "source": p.Source,
		"name": nilIfEmpty(p.Name), "created_at": apiTime(p.CreatedAt), "updated_at": apiTime(p.UpdatedAt),
		"started_at": apiTimePtr(p.StartedAt), "finished_at": apiTimePtr(p.FinishedAt),
		"web_url": l.pipelineURL(proj, p.ID)}
	return out
}
