package models

import "time"

// MergeRequestState is the state of a merge request.
type MergeRequestState string

// Merge request states.
const (
	MergeRequestOpened MergeRequestState = "opened"
	MergeRequestClosed MergeRequestState = "closed"
	MergeRequestMerged MergeRequestState = "merged"
)

// Merge statuses (GitLab's merge_status values).
const (
	MergeStatusUnchecked      = "unchecked"
	MergeStatusChecking       = "checking"
	MergeStatusCanBeMerged    = "can_be_merged"
	MergeStatusCannotBeMerged = "cannot_be_merged"
)

// MergeRequest is a GitLab merge request (table merge_requests). Source and
// target branch are in the same project. IID is its number inside the
// project (!1, !2, …), allocated by the store. SHA is the head commit of
// the source branch. Assignees and reviewers are stored in the join tables
// merge_request_assignees and merge_request_reviewers.
type MergeRequest struct {
	ID           int64             `gorm:"primaryKey" json:"id"`
	ProjectID    int64             `json:"project_id"`
	IID          int64             `gorm:"column:iid" json:"iid"`
	Title        string            `json:"title"`
	Description  string            `json:"description"`
	State        MergeRequestState `json:"state"`
	SourceBranch string            `json:"source_branch"`
	TargetBranch string            `json:"target_branch"`
	AuthorID     int64             `json:"author_id"`
	Labels       StringList        `gorm:"type:text" json:"labels"`
	Draft        bool              `json:"draft"`
	MergeStatus  string            `json:"merge_status"`
	SHA          string            `gorm:"column:sha" json:"sha"`
	CreatedAt    time.Time         `json:"created_at"`
	UpdatedAt    time.Time         `json:"updated_at"`
	MergedAt     *time.Time        `json:"merged_at"`
	ClosedAt     *time.Time        `json:"closed_at"`
	// Squash, ForceRemoveSourceBranch, DiscussionLocked and
	// AllowCollaboration are the merge options save_merge_request sets;
	// MilestoneID the milestone, if any.
	Squash                  bool   `json:"squash"`
	ForceRemoveSourceBranch bool   `json:"force_remove_source_branch"`
	DiscussionLocked        bool   `json:"discussion_locked"`
	AllowCollaboration      bool   `json:"allow_collaboration"`
	MilestoneID             *int64 `json:"milestone_id"`

	Author    *User  `gorm:"foreignKey:AuthorID" json:"author,omitempty"`
	Assignees []User `gorm:"many2many:merge_request_assignees" json:"assignees"`
	Reviewers []User `gorm:"many2many:merge_request_reviewers" json:"reviewers"`
	// Commits and Diffs are written by the store's CreateMergeRequest; reads
	// load them separately (they are not part of GitLab's MR JSON).
	Commits []MergeRequestCommit `gorm:"foreignKey:MergeRequestID" json:"-"`
	Diffs   []MergeRequestDiff   `gorm:"foreignKey:MergeRequestID" json:"-"`
}

// AssigneeIDs returns the ids of the loaded assignees.
func (m *MergeRequest) AssigneeIDs() []int64 { return userIDs(m.Assignees) }

// ReviewerIDs returns the ids of the loaded reviewers.
func (m *MergeRequest) ReviewerIDs() []int64 { return userIDs(m.Reviewers) }

// MergeRequestCommit is one commit of a merge request (table
// merge_request_commits). Position orders the commits newest first, as
// GitLab lists them (0 is the head commit).
type MergeRequestCommit struct {
	ID             int64     `gorm:"primaryKey" json:"-"`
	MergeRequestID int64     `json:"-"`
	SHA            string    `gorm:"column:sha" json:"id"`
	ShortID        string    `json:"short_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	AuthoredDate   time.Time `json:"authored_date"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
	Position       int       `json:"-"`
}

// MergeRequestDiff is the diff of one file in a merge request (table
// merge_request_diff_files, GitLab's name). Diff holds the unified diff
// hunks without the "diff --git"/"---"/"+++" header lines, as GitLab's API
// returns them. Position orders the files.
type MergeRequestDiff struct {
	ID             int64  `gorm:"primaryKey" json:"-"`
	MergeRequestID int64  `json:"-"`
	OldPath        string `json:"old_path"`
	NewPath        string `json:"new_path"`
	AMode          string `gorm:"column:a_mode" json:"a_mode"`
	BMode          string `gorm:"column:b_mode" json:"b_mode"`
	NewFile        bool   `json:"new_file"`
	RenamedFile    bool   `json:"renamed_file"`
	DeletedFile    bool   `json:"deleted_file"`
	Diff           string `json:"diff"`
	Position       int    `json:"-"`
}

// TableName maps MergeRequestDiff to merge_request_diff_files.
func (MergeRequestDiff) TableName() string { return "merge_request_diff_files" }

// MergeRequestQuery selects a page of merge requests, newest first (id
// descending), keyset-paged by BeforeID. Zero fields do not filter.
type MergeRequestQuery struct {
	// ProjectIDs are the projects to list from (one project, or the
	// projects of a group the viewer may read); empty lists nothing.
	ProjectIDs []int64
	State      MergeRequestState // "" or "all": any state
	AuthorID   int64
	AssigneeID int64
	ReviewerID int64
	// MilestoneID filters by milestone when > 0.
	MilestoneID int64
	// Labels must all be on the merge request.
	Labels []string
	// Search matches title or description, case-insensitively.
	Search   string
	BeforeID int64
	Limit    int
}

// MergeRequestUpdate is a change to a merge request (save_merge_request on
// an existing one). Nil fields are left alone; non-nil slices replace the
// whole list (an empty slice clears it).
type MergeRequestUpdate struct {
	Title, Description, TargetBranch             *string
	StateEvent                                   string // "", "close" or "reopen"
	Labels, AddLabels, RemoveLabels              []string
	AssigneeIDs, ReviewerIDs                     []int64
	MilestoneID                                  **int64 // set to a nil *int64 to clear
	Squash, RemoveSourceBranch, DiscussionLocked *bool
	AllowCollaboration, Draft                    *bool
}
