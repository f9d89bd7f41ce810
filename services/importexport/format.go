package importexport

import (
	"encoding/json"
	"fmt"
	"time"
)

// The archive's layout and version, as GitLab's importer checks them.
const (
	// Version is the content of the VERSION file: GitLab 17–19 write and
	// accept exactly this export format version.
	Version = "0.2.4"

	versionFile     = "VERSION"
	gitlabVersion   = "GITLAB_VERSION"
	gitlabRevision  = "GITLAB_REVISION"
	projectFile     = "tree/project.json"
	relationDir     = "tree/project/"
	projectBundle   = "project.bundle"
	wikiBundle      = "project.wiki.bundle"
	relationSuffix  = ".ndjson"
	exportedVersion = "17.0.0" // the GitLab version the GITLAB_VERSION file of our exports names
)

// The relations glmcp reads and writes (tree/project/<name>.ndjson).
const (
	relMembers       = "project_members"
	relLabels        = "labels"
	relMilestones    = "milestones"
	relIssues        = "issues"
	relMergeRequests = "merge_requests"
	relPipelines     = "ci_pipelines"
	relReleases      = "releases"
	relContributions = "user_contributions"
)

// modelled are the relations glmcp imports, in the order they are read
// (labels and milestones before what refers to them).
var modelled = []string{relMembers, relContributions, relLabels, relMilestones, relIssues, relMergeRequests, relPipelines, relReleases}

// exProject is tree/project.json: the project's own attributes (GitLab
// leaves out its name, path and ids; the importer names the project).
type exProject struct {
	Description     string `json:"description"`
	VisibilityLevel *int   `json:"visibility_level,omitempty"`
	Archived        bool   `json:"archived"`
	// MergeRequestsFFOnlyEnabled and MergeRequestsRebaseEnabled are
	// GitLab's columns behind the project's merge method.
	MergeRequestsFFOnlyEnabled bool `json:"merge_requests_ff_only_enabled"`
	MergeRequestsRebaseEnabled bool `json:"merge_requests_rebase_enabled"`
}

// GitLab's visibility levels.
const (
	levelPrivate  = 0
	levelInternal = 10
	levelPublic   = 20
)

// exUser is a member's user: only these three fields are exported.
type exUser struct {
	ID          int64  `json:"id"`
	Username    string `json:"username"`
	PublicEmail string `json:"public_email,omitempty"`
	Email       string `json:"email,omitempty"`
}

// exContributor is a line of user_contributions.ndjson: a user who
// authored something in the project, member or not.
type exContributor struct {
	ID          int64  `json:"id"`
	Username    string `json:"username"`
	Name        string `json:"name"`
	PublicEmail string `json:"public_email,omitempty"`
}

// exMember is a line of project_members.ndjson.
type exMember struct {
	AccessLevel int       `json:"access_level"`
	SourceType  string    `json:"source_type"`
	UserID      int64     `json:"user_id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	User        *exUser   `json:"user"`
}

// exLabel is a line of labels.ndjson, and the label of a label link.
type exLabel struct {
	ID          int64     `json:"id"`
	Title       string    `json:"title"`
	Color       string    `json:"color"`
	Description string    `json:"description"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Priorities is the label's priority in the project (GitLab's
	// label_priorities; one at most).
	Priorities []exLabelPriority `json:"priorities,omitempty"`
}

// exLabelPriority is a label's priority.
type exLabelPriority struct {
	Priority  int       `json:"priority"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// exLabelLink links an issue or a merge request to a label.
type exLabelLink struct {
	LabelID    int64    `json:"label_id,omitempty"`
	TargetType string   `json:"target_type"`
	Label      *exLabel `json:"label"`
}

// exMilestone is a line of milestones.ndjson, and the milestone of an
// issue or a merge request.
type exMilestone struct {
	ID          int64     `json:"id"`
	IID         int64     `json:"iid"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	State       string    `json:"state"`
	StartDate   *string   `json:"start_date"`
	DueDate     *string   `json:"due_date"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// GroupID is set on a group milestone an issue or a merge request
	// names (its own iid is the group's, not the project's).
	GroupID *int64 `json:"group_id,omitempty"`
	// Events are not modelled: counted in the summary.
	Events json.RawMessage `json:"events,omitempty"`
}

// exAuthor is the one attribute of a note's author GitLab exports.
type exAuthor struct {
	Name string `json:"name"`
}

// exUserRef is an assignee, a reviewer or an approval.
type exUserRef struct {
	UserID    int64      `json:"user_id"`
	State     string     `json:"state,omitempty"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// exPosition is a diff note's position.
type exPosition struct {
	BaseSHA      string `json:"base_sha"`
	StartSHA     string `json:"start_sha"`
	HeadSHA      string `json:"head_sha"`
	OldPath      string `json:"old_path"`
	NewPath      string `json:"new_path"`
	PositionType string `json:"position_type"`
	OldLine      *int   `json:"old_line"`
	NewLine      *int   `json:"new_line"`
}

// exNote is a note of an issue or a merge request.
type exNote struct {
	ID           int64           `json:"id"`
	Note         string          `json:"note"`
	NoteableType string          `json:"noteable_type"`
	AuthorID     int64           `json:"author_id"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	System       bool            `json:"system"`
	Type         *string         `json:"type"`
	Position     *exPosition     `json:"position,omitempty"`
	ResolvedAt   *time.Time      `json:"resolved_at,omitempty"`
	ResolvedByID *int64          `json:"resolved_by_id,omitempty"`
	DiscussionID string          `json:"discussion_id"`
	Confidential *bool           `json:"confidential,omitempty"`
	Internal     bool            `json:"internal"`
	Author       *exAuthor       `json:"author,omitempty"`
	AwardEmoji   json.RawMessage `json:"award_emoji,omitempty"`
	// OriginalPosition and LineCode are a DiffNote's first position and
	// GitLab's code of its line (GitLab's DiffNote requires both).
	OriginalPosition *exPosition     `json:"original_position,omitempty"`
	LineCode         *string         `json:"line_code,omitempty"`
	Suggestions      json.RawMessage `json:"suggestions,omitempty"`
	// Events and NoteDiffFile are not modelled: counted in the summary.
	NoteEvents   json.RawMessage `json:"events,omitempty"`
	NoteDiffFile json.RawMessage `json:"note_diff_file,omitempty"`
}

// exWorkItemType names an issue's type.
type exWorkItemType struct {
	BaseType string `json:"base_type"`
}

// exIssue is a line of issues.ndjson.
type exIssue struct {
	ID                  int64           `json:"id"`
	IID                 int64           `json:"iid"`
	Title               string          `json:"title"`
	Description         string          `json:"description"`
	AuthorID            int64           `json:"author_id"`
	State               string          `json:"state"`
	Confidential        bool            `json:"confidential"`
	DueDate             *string         `json:"due_date"`
	StartDate           *string         `json:"start_date,omitempty"`
	CreatedAt           time.Time       `json:"created_at"`
	UpdatedAt           time.Time       `json:"updated_at"`
	ClosedAt            *time.Time      `json:"closed_at"`
	WorkItemType        *exWorkItemType `json:"work_item_type,omitempty"`
	Notes               []exNote        `json:"notes"`
	LabelLinks          []exLabelLink   `json:"label_links"`
	Milestone           *exMilestone    `json:"milestone,omitempty"`
	IssueAssignees      []exUserRef     `json:"issue_assignees"`
	AwardEmoji          json.RawMessage `json:"award_emoji,omitempty"`
	ResourceStateEvents json.RawMessage `json:"resource_state_events,omitempty"`
	Events              json.RawMessage `json:"events,omitempty"`
	Timelogs            json.RawMessage `json:"timelogs,omitempty"`
	// IssueType is the type older exports wrote before work_item_type.
	IssueType string `json:"issue_type,omitempty"`
	exSkippedIssueRelations
}

// exSkippedIssueRelations are the relations of an issue or a merge
// request GitLab exports and glmcp does not model: counted, by name, in
// the summary.
type exSkippedIssueRelations struct {
	ResourceLabelEvents     json.RawMessage `json:"resource_label_events,omitempty"`
	ResourceMilestoneEvents json.RawMessage `json:"resource_milestone_events,omitempty"`
	ResourceIterationEvents json.RawMessage `json:"resource_iteration_events,omitempty"`
	Designs                 json.RawMessage `json:"designs,omitempty"`
	DesignVersions          json.RawMessage `json:"design_versions,omitempty"`
	ZoomMeetings            json.RawMessage `json:"zoom_meetings,omitempty"`
	SentryIssue             json.RawMessage `json:"sentry_issue,omitempty"`
	IssuableSLA             json.RawMessage `json:"issuable_sla,omitempty"`
	WorkItemDescription     json.RawMessage `json:"work_item_description,omitempty"`
}

// exDiffCommit and exDiffFile are a merge request diff's commits (newest
// first: relative_order 0 is the head) and files. GitLab 17 and later
// name a commit's author and committer in commit_author and committer;
// older exports in author_name and author_email. A file's patch is
// utf8_diff (diff in some versions).
type exDiffCommit struct {
	SHA            string        `json:"sha"`
	RelativeOrder  int           `json:"relative_order"`
	Message        string        `json:"message"`
	AuthoredDate   time.Time     `json:"authored_date"`
	CommittedDate  time.Time     `json:"committed_date"`
	CommitAuthor   *exCommitUser `json:"commit_author,omitempty"`
	Committer      *exCommitUser `json:"committer,omitempty"`
	AuthorName     string        `json:"author_name,omitempty"`
	AuthorEmail    string        `json:"author_email,omitempty"`
	CommitterName  string        `json:"committer_name,omitempty"`
	CommitterEmail string        `json:"committer_email,omitempty"`
}

type exCommitUser struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

type exDiffFile struct {
	RelativeOrder int    `json:"relative_order"`
	NewFile       bool   `json:"new_file"`
	RenamedFile   bool   `json:"renamed_file"`
	DeletedFile   bool   `json:"deleted_file"`
	TooLarge      bool   `json:"too_large"`
	Binary        bool   `json:"binary"`
	AMode         string `json:"a_mode"`
	BMode         string `json:"b_mode"`
	NewPath       string `json:"new_path"`
	OldPath       string `json:"old_path"`
	UTF8Diff      string `json:"utf8_diff"`
	Diff          string `json:"diff,omitempty"`
}

// exMergeRequestDiff is a merge request's latest diff.
type exMergeRequestDiff struct {
	State          string         `json:"state"`
	BaseCommitSHA  string         `json:"base_commit_sha"`
	StartCommitSHA string         `json:"start_commit_sha"`
	HeadCommitSHA  string         `json:"head_commit_sha"`
	Commits        []exDiffCommit `json:"merge_request_diff_commits"`
	Files          []exDiffFile   `json:"merge_request_diff_files"`
}

// exMergeRequest is a line of merge_requests.ndjson.
type exMergeRequest struct {
	ID                      int64               `json:"id"`
	IID                     int64               `json:"iid"`
	Title                   string              `json:"title"`
	Description             string              `json:"description"`
	State                   string              `json:"state"`
	SourceBranch            string              `json:"source_branch"`
	TargetBranch            string              `json:"target_branch"`
	AuthorID                int64               `json:"author_id"`
	MergeStatus             string              `json:"merge_status"`
	MergeUserID             *int64              `json:"merge_user_id"`
	MergeCommitSHA          *string             `json:"merge_commit_sha"`
	SquashCommitSHA         *string             `json:"squash_commit_sha"`
	Squash                  bool                `json:"squash"`
	Draft                   bool                `json:"draft"`
	DiscussionLocked        *bool               `json:"discussion_locked"`
	AllowMaintainerToPush   *bool               `json:"allow_maintainer_to_push"`
	ForceRemoveSourceBranch *bool               `json:"force_remove_source_branch,omitempty"`
	DiffHeadSHA             string              `json:"diff_head_sha"`
	CreatedAt               time.Time           `json:"created_at"`
	UpdatedAt               time.Time           `json:"updated_at"`
	MergedAt                *time.Time          `json:"merged_at,omitempty"`
	ClosedAt                *time.Time          `json:"closed_at,omitempty"`
	Notes                   []exNote            `json:"notes"`
	LabelLinks              []exLabelLink       `json:"label_links"`
	Milestone               *exMilestone        `json:"milestone,omitempty"`
	Assignees               []exUserRef         `json:"merge_request_assignees"`
	Reviewers               []exUserRef         `json:"merge_request_reviewers"`
	Approvals               []exUserRef         `json:"approvals"`
	Diff                    *exMergeRequestDiff `json:"merge_request_diff,omitempty"`
	AwardEmoji              json.RawMessage     `json:"award_emoji,omitempty"`
	ResourceStateEvents     json.RawMessage     `json:"resource_state_events,omitempty"`
	Events                  json.RawMessage     `json:"events,omitempty"`
	Timelogs                json.RawMessage     `json:"timelogs,omitempty"`
	Metrics                 json.RawMessage     `json:"metrics,omitempty"`
	exSkippedIssueRelations
	// MergeParams is where GitLab keeps force_remove_source_branch
	// ("1"/"0", or a boolean); the top-level field above is glmcp's
	// older spelling, still read.
	MergeParams *exMergeParams `json:"merge_params,omitempty"`
}

// exMergeParams is a merge request's merge_params.
type exMergeParams struct {
	ForceRemoveSourceBranch json.RawMessage `json:"force_remove_source_branch,omitempty"`
}

// exStatus is a job (GitLab's commit status: Ci::Build, Ci::Bridge).
type exStatus struct {
	ID            int64       `json:"id"`
	Name          string      `json:"name"`
	Stage         string      `json:"stage"`
	Status        statusValue `json:"status"`
	Ref           string      `json:"ref"`
	Tag           bool        `json:"tag"`
	Type          string      `json:"type"`
	AllowFailure  bool        `json:"allow_failure"`
	FailureReason *string     `json:"failure_reason"`
	Retried       *bool       `json:"retried"`
	UserID        *int64      `json:"user_id"`
	CreatedAt     time.Time   `json:"created_at"`
	UpdatedAt     time.Time   `json:"updated_at"`
	StartedAt     *time.Time  `json:"started_at"`
	FinishedAt    *time.Time  `json:"finished_at"`
}

// exStage is a pipeline's stage with its jobs (statuses, or builds and
// bridges as newer GitLab versions name them).
type exStage struct {
	Name     string      `json:"name"`
	Status   statusValue `json:"status"`
	Position int         `json:"position"`
	Statuses []exStatus  `json:"statuses,omitempty"`
	Builds   []exStatus  `json:"builds,omitempty"`
	Bridges  []exStatus  `json:"bridges,omitempty"`
	Generic  []exStatus  `json:"generic_commit_statuses,omitempty"`
}

// exPipeline is a line of ci_pipelines.ndjson.
type exPipeline struct {
	ID             int64       `json:"id"`
	IID            int64       `json:"iid"`
	Ref            string      `json:"ref"`
	SHA            string      `json:"sha"`
	Tag            bool        `json:"tag"`
	Status         statusValue `json:"status"`
	Source         string      `json:"source"`
	UserID         *int64      `json:"user_id"`
	MergeRequestID *int64      `json:"merge_request_id,omitempty"`
	CreatedAt      time.Time   `json:"created_at"`
	UpdatedAt      time.Time   `json:"updated_at"`
	StartedAt      *time.Time  `json:"started_at"`
	FinishedAt     *time.Time  `json:"finished_at"`
	Stages         []exStage   `json:"stages"`
	// Metadata holds the pipeline's name.
	Metadata *struct {
		Name string `json:"name"`
	} `json:"pipeline_metadata,omitempty"`
	// MergeRequest is the merge request a merge request pipeline ran
	// for (GitLab exports its iid here; the id is left out).
	MergeRequest *struct {
		IID int64 `json:"iid"`
	} `json:"merge_request,omitempty"`
	// ExternalPullRequest is not modelled: counted in the summary.
	ExternalPullRequest json.RawMessage `json:"external_pull_request,omitempty"`
}

// exReleaseLink is a release's link.
type exReleaseLink struct {
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	LinkType  string    `json:"link_type"`
	Filepath  *string   `json:"filepath"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// exRelease is a line of releases.ndjson.
type exRelease struct {
	Tag         string          `json:"tag"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	AuthorID    *int64          `json:"author_id"`
	SHA         string          `json:"sha,omitempty"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	ReleasedAt  *time.Time      `json:"released_at"`
	Links       []exReleaseLink `json:"links"`
	// MilestoneReleases are the release's milestones.
	MilestoneReleases []exMilestoneRelease `json:"milestone_releases,omitempty"`
}

// exMilestoneRelease links a release to a milestone.
type exMilestoneRelease struct {
	Milestone *exMilestone `json:"milestone"`
}

// Failure is a record of the archive the import could not save, as
// GitLab's importer records it (import_failures) and goes on: the
// relation (its ndjson file), the line of that file, and what was wrong.
// The record, or the part of it named, is left out; the rest comes in.
type Failure struct {
	Relation string
	Line     int
	Message  string
}

// statusValue is a pipeline's, a stage's or a job's status: a name, or
// the number older GitLab versions wrote for it (HasStatus'
// STATUSES_ENUM).
type statusValue string

var statusNumbers = []string{"created", "pending", "running", "success", "failed", "canceled", "skipped", "manual",
	"scheduled", "preparing", "waiting_for_resource", "waiting_for_callback", "canceling"}

// UnmarshalJSON reads a status name or number; an unknown number is
// kept as "status N", which the checks record as a failure.
func (s *statusValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = statusValue(v)
		return nil
	}
	if string(b) == "null" {
		*s = ""
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n >= 0 && n < len(statusNumbers) {
		*s = statusValue(statusNumbers[n])
	} else {
		*s = statusValue(fmt.Sprintf("status %d", n))
	}
	return nil
}
