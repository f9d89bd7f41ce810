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
// project (!1, !2, …), allocated by the store. Assignees and reviewers are
// stored in the join tables merge_request_assignees and
// merge_request_reviewers.
//
// Its commits and diffs are not stored: they are read from the project's
// git repository. While it is open they are what the source branch adds
// to the target branch; once merged or closed, what SHA (the head) added
// to DiffBaseSHA (the merge base), as recorded then. SHA is the source
// branch's head when the merge request was created, last updated, merged
// or closed (read the branch for the live head of an open one). Only a
// merge request imported without its commits keeps a diff
// (MergeRequestDiff), read when git lacks them.
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
	// DiffBaseSHA is the merge base SHA was compared with; MergeCommitSHA
	// and SquashCommitSHA are the commits a merge made; MergeUserID merged.
	DiffBaseSHA     string     `gorm:"column:diff_base_sha" json:"diff_base_sha"`
	MergeCommitSHA  string     `gorm:"column:merge_commit_sha" json:"merge_commit_sha"`
	SquashCommitSHA string     `gorm:"column:squash_commit_sha" json:"squash_commit_sha"`
	MergeUserID     *int64     `json:"merge_user_id"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	MergedAt        *time.Time `json:"merged_at"`
	ClosedAt        *time.Time `json:"closed_at"`
	// Squash, ForceRemoveSourceBranch, DiscussionLocked and
	// AllowCollaboration are the merge options save_merge_request sets;
	// MilestoneID the milestone, if any.
	Squash                  bool   `json:"squash"`
	ForceRemoveSourceBranch bool   `json:"force_remove_source_branch"`
	DiscussionLocked        bool   `json:"discussion_locked"`
	AllowCollaboration      bool   `json:"allow_collaboration"`
	MilestoneID             *int64 `json:"milestone_id"`
	// Imported marks a merge request a project export archive brought
	// in: GitLab's history may hold several open merge requests of one
	// branch pair (from different forks), so the rule of one open merge
	// request per branch pair applies to the others only.
	Imported bool `json:"-"`

	Author    *User  `gorm:"foreignKey:AuthorID" json:"author,omitempty"`
	Assignees []User `gorm:"many2many:merge_request_assignees" json:"assignees"`
	Reviewers []User `gorm:"many2many:merge_request_reviewers" json:"reviewers"`
}

// AssigneeIDs returns the ids of the loaded assignees.
func (m *MergeRequest) AssigneeIDs() []int64 { return userIDs(m.Assignees) }

// ReviewerIDs returns the ids of the loaded reviewers.
func (m *MergeRequest) ReviewerIDs() []int64 { return userIDs(m.Reviewers) }

// MergeRequestMerge records a merge made in git (accept_merge_request).
// The store applies it only to a merge request that is still open.
type MergeRequestMerge struct {
	HeadSHA, DiffBaseSHA            string
	MergeCommitSHA, SquashCommitSHA string
	MergeUserID                     int64
	Squash                          bool
	// RemoveSourceBranch records should_remove_source_branch.
	RemoveSourceBranch *bool
}

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
	Search string
	// Lockdown leaves out matches in withheld descriptions
	// (SearchQuery.Lockdown).
	Lockdown bool
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
	// HeadSHA and DiffBaseSHA record the diff refs read from git (set on
	// close, so a closed merge request keeps its diff).
	HeadSHA, DiffBaseSHA *string
}
