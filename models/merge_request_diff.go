package models

import "time"

// MergeRequestDiff is a merge request's diff as a project export archive
// carried it (its merge_request_diff): kept for a merge request whose
// commits the imported repository lacks (its source branch was deleted,
// or its head lived only in refs/merge-requests/*), so that its diff and
// commits can still be read. A merge request's diff is otherwise read
// from git, never stored.
type MergeRequestDiff struct {
	HeadSHA  string                   `json:"head_sha"`
	BaseSHA  string                   `json:"base_sha"`
	StartSHA string                   `json:"start_sha"`
	Commits  []MergeRequestDiffCommit `json:"commits"` // newest first
	Files    []MergeRequestDiffFile   `json:"files"`
}

// MergeRequestDiffCommit is one commit of a stored merge request diff.
type MergeRequestDiffCommit struct {
	SHA            string    `json:"sha"`
	Message        string    `json:"message"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	AuthoredDate   time.Time `json:"authored_date"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
}

// MergeRequestDiffFile is one changed file of a stored merge request
// diff; Diff is its patch ("" when too large or binary).
type MergeRequestDiffFile struct {
	OldPath     string `json:"old_path"`
	NewPath     string `json:"new_path"`
	AMode       string `json:"a_mode"`
	BMode       string `json:"b_mode"`
	NewFile     bool   `json:"new_file"`
	RenamedFile bool   `json:"renamed_file"`
	DeletedFile bool   `json:"deleted_file"`
	TooLarge    bool   `json:"too_large"`
	Binary      bool   `json:"binary"`
	Diff        string `json:"diff"`
}
