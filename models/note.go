package models

import "time"

// NoteableType names the kind of object a note is attached to (GitLab's
// polymorphic notes.noteable_type).
type NoteableType string

// Noteable types.
const (
	NoteableIssue        NoteableType = "Issue"
	NoteableMergeRequest NoteableType = "MergeRequest"
)

// NoteTypeDiscussion is the Type of a note that belongs to a threaded
// discussion; a stand-alone comment has an empty Type (GitLab's null).
const NoteTypeDiscussion = "DiscussionNote"

// Note is a comment on an issue or merge request (table notes). Notes that
// share a DiscussionID form one thread; the first is the thread's start.
// Internal notes are visible only to project members of Reporter and above;
// system notes record events ("changed the description").
type Note struct {
	ID           int64        `gorm:"primaryKey" json:"id"`
	Type         string       `json:"type,omitempty"`
	NoteableType NoteableType `json:"noteable_type"`
	NoteableID   int64        `json:"noteable_id"`
	ProjectID    int64        `json:"project_id"`
	AuthorID     int64        `json:"author_id"`
	Body         string       `json:"body"`
	Internal     bool         `json:"internal"`
	System       bool         `json:"system"`
	DiscussionID string       `json:"discussion_id"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`

	Author *User `gorm:"foreignKey:AuthorID" json:"author,omitempty"`
}
