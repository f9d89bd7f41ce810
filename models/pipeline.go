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

	Jobs []CIJob `gorm:"foreignKey:PipelineID" json:"-"`
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
}

// TableName maps CIJob to ci_jobs.
func (CIJob) TableName() string { return "ci_jobs" }
