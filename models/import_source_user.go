package models

import "time"

// Source user statuses (GitLab's Import::SourceUser states glmcp uses).
const (
	SourceUserPending   = "pending_reassignment"
	SourceUserCompleted = "completed"
)

// ImportSourceUser is a user of the instance a project archive came from,
// as an import met it (table import_source_users, GitLab's name): its id
// there (SourceUserIdentifier), username and name, and the placeholder
// user that stands for it here until `projects reassign` gives its
// contributions to a real user (ReassignToUserID, Status completed).
// AccessLevel is the source user's role in the project when it was a
// member (GitLab keeps it as an Import::Placeholders::Membership): a
// placeholder gets no membership, its user gets it on reassignment.
type ImportSourceUser struct {
	ID                   int64        `gorm:"primaryKey" json:"id"`
	ProjectID            int64        `json:"project_id"`
	PlaceholderUserID    *int64       `json:"placeholder_user_id"`
	ReassignToUserID     *int64       `json:"reassign_to_user_id"`
	SourceUserIdentifier string       `json:"source_user_identifier"`
	SourceUsername       string       `json:"source_username"`
	SourceName           string       `json:"source_name"`
	AccessLevel          *AccessLevel `json:"access_level"`
	Status               string       `json:"status"`
	CreatedAt            time.Time    `json:"created_at"`
	UpdatedAt            time.Time    `json:"updated_at"`
}
