package models

import "time"

// Pipeline and job statuses (GitLab's names).
const (
	StatusCreated  = "created"
	StatusPending  = "pending"
	StatusRunning  = "running"
	StatusSuccess  = "success"
	StatusFailed   = "failed"
	StatusCanceled = "canceled"
	StatusSkipped  = "skipped"
	StatusManual   = "manual"
)

// Pipeline sources (GitLab's names).
const (
	PipelineSourcePush              = "push"
	PipelineSourceWeb               = "web"
	PipelineSourceMergeRequestEvent = "merge_request_event"
	PipelineSourceSchedule          = "schedule"
	PipelineSourceAPI               = "api"
)

// Pipeline is a CI pipeline (table ci_pipelines, GitLab's name). IID is its
// number inside the project, allocated by the store. MergeRequestID is set
// for merge request pipelines. Jobs are written with it by the store's
// CreatePipeline.
type Pipeline struct {
	ID             int64      `gorm:"primaryKey" json:"id"`
	ProjectID      int64      `json:"project_id"`
	IID            int64      `gorm:"column:iid" json:"iid"`
	SHA            string     `gorm:"column:sha" json:"sha"`
	Ref            string     `json:"ref"`
	Status         string     `json:"status"`
	Source         string     `json:"source"`
	UserID         *int64     `json:"user_id"`
	MergeRequestID *int64     `json:"merge_request_id"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	StartedAt      *time.Time `json:"started_at"`
	FinishedAt     *time.Time `json:"finished_at"`
	// Name is the pipeline's display name (empty when unnamed). Tag is
	// true when Ref is a tag.
	Name string `json:"name"`
	Tag  bool   `json:"tag"`
	// UpstreamPipelineID and SourceJobID are set on a downstream pipeline:
	// the pipeline and the bridge job that triggered it.
	UpstreamPipelineID *int64 `json:"upstream_pipeline_id"`
	SourceJobID        *int64 `json:"source_job_id"`

	Jobs      []CIJob            `gorm:"foreignKey:PipelineID" json:"-"`
	Variables []PipelineVariable `gorm:"foreignKey:PipelineID" json:"-"`
}

// TableName maps Pipeline to ci_pipelines.
func (Pipeline) TableName() string { return "ci_pipelines" }

// CIJob is one job of a pipeline (table ci_jobs). Duration is in seconds,
// nil until the job has started.
type CIJob struct {
	ID            int64      `gorm:"primaryKey" json:"id"`
	PipelineID    int64      `json:"pipeline_id"`
	ProjectID     int64      `json:"project_id"`
	Name          string     `json:"name"`
	Stage         string     `json:"stage"`
	Status        string     `json:"status"`
	Ref           string     `json:"ref"`
	AllowFailure  bool       `json:"allow_failure"`
	FailureReason string     `json:"failure_reason,omitempty"`
	Duration      *float64   `json:"duration"`
	CreatedAt     time.Time  `json:"created_at"`
	StartedAt     *time.Time `json:"started_at"`
	FinishedAt    *time.Time `json:"finished_at"`
	// Type is JobTypeBuild or JobTypeBridge. Retried is true once a newer
	// job of the same name replaced this one. UserID started the job.
	Type    string `json:"type"`
	Retried bool   `json:"retried"`
	UserID  *int64 `json:"user_id"`
}

// Job types (GitLab's STI names in ci_builds.type).
const (
	JobTypeBuild  = "Ci::Build"
	JobTypeBridge = "Ci::Bridge"
)

// PipelineVariable is a variable a pipeline was created with (table
// ci_pipeline_variables). VariableType is env_var or file.
type PipelineVariable struct {
	ID           int64  `gorm:"primaryKey" json:"-"`
	PipelineID   int64  `json:"-"`
	Key          string `json:"key"`
	Value        string `json:"value"`
	VariableType string `json:"variable_type"`
}

// TableName maps PipelineVariable to ci_pipeline_variables.
func (PipelineVariable) TableName() string { return "ci_pipeline_variables" }

// Artifact file types this store gives meaning to; others (junit, …) are
// stored and listed as they come.
const (
	ArtifactTrace   = "trace"   // the job's log
	ArtifactArchive = "archive" // the job's artifacts, a zip
)

// JobArtifact is one file of a job (table ci_job_artifacts): its log
// (FileType trace) or its artifacts archive (FileType archive, a zip) or a
// report. Its bytes are stored in chunks; read them with the store's
// artifact reader.
type JobArtifact struct {
	ID         int64      `gorm:"primaryKey" json:"id"`
	ProjectID  int64      `json:"project_id"`
	JobID      int64      `json:"job_id"`
	FileType   string     `json:"file_type"`
	FileFormat string     `json:"file_format"`
	FileName   string     `json:"file_name"`
	Size       int64      `json:"size"`
	ExpireAt   *time.Time `json:"expire_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

// TableName maps JobArtifact to ci_job_artifacts.
func (JobArtifact) TableName() string { return "ci_job_artifacts" }

// Expired reports whether the artifact's expiry has passed at now.
func (a *JobArtifact) Expired(now time.Time) bool {
	return a.ExpireAt != nil && !a.ExpireAt.After(now)
}

// TableName maps CIJob to ci_jobs.
func (CIJob) TableName() string { return "ci_jobs" }

// PipelineQuery selects a page of a project's pipelines (list_pipelines,
// REST-style page/per_page). Zero fields do not filter.
type PipelineQuery struct {
	ProjectID     int64
	Ref           string
	Status        string
	Source        string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	// OrderBy is id (default), status, ref, updated_at or user_id; Sort is
	// asc or desc (default).
	OrderBy, Sort string
	Page, PerPage int
}

// JobQuery selects a page of a pipeline's jobs by id, keyset-paged by
// AfterID. Retried jobs are left out, as GitLab's pipeline view shows the
// latest attempt of each job.
type JobQuery struct {
	PipelineID int64
	Type       string // JobTypeBuild or JobTypeBridge; "" both
	Status     string
	AfterID    int64
	Limit      int
}

// ActiveStatuses are the statuses of a pipeline or job that has not
// finished and may be canceled (GitLab's CANCELABLE_STATUSES; canceling is
// already on its way to canceled).
var ActiveStatuses = []string{StatusCreated, "waiting_for_resource", "preparing", "waiting_for_callback", StatusPending,
	StatusRunning, "scheduled"}
