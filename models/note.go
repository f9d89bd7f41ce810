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
// NoteTypeDiff is the Type of a note on a line of a merge request's diff
// (it starts a discussion; its replies are DiffNotes too).
const (
	NoteTypeDiscussion = "DiscussionNote"
	NoteTypeDiff       = "DiffNote"
)

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
	// Position is where a DiffNote sits in the diff; nil for other notes.
	Position *DiffPosition `gorm:"type:text;serializer:json" json:"position,omitempty"`
	// OriginalPosition is where a DiffNote was first written (GitLab's
	// original_position; nil: Position) and LineCode GitLab's line code
	// of its line ("": none kept); both kept for the project export
	// archive.
	OriginalPosition *DiffPosition `gorm:"type:text;serializer:json" json:"-"`
	LineCode         string        `json:"-"`
	// ResolvedAt and ResolvedByID are set while the note's discussion is
	// resolved (merge request discussions only).
	ResolvedAt   *time.Time `json:"resolved_at,omitempty"`
	ResolvedByID *int64     `json:"resolved_by_id,omitempty"`

	Author *User `gorm:"foreignKey:AuthorID" json:"author,omitempty"`
}

// Resolvable reports whether n counts toward its discussion's resolution:
// a user's note in a merge request thread (GitLab: discussion and diff
// notes are resolvable, stand-alone comments and system notes are not).
func (n *Note) Resolvable() bool {
	return n.NoteableType == NoteableMergeRequest && !n.System &&
		(n.Type == NoteTypeDiscussion || n.Type == NoteTypeDiff)
}

// DiffPosition is the position of a diff note (GitLab's position object):
// the diff's three SHAs, the file's old and new path, and the old and/or
// new line (nil when the line exists on one side only).
type DiffPosition struct {
	BaseSHA      string `json:"base_sha"`
	StartSHA     string `json:"start_sha"`
	HeadSHA      string `json:"head_sha"`
	OldPath      string `json:"old_path"`
	NewPath      string `json:"new_path"`
	PositionType string `json:"position_type"`
	OldLine      *int   `json:"old_line"`
	NewLine      *int   `json:"new_line"`
}
