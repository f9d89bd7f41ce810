package models

import "time"

// Approval is one user's approval of a merge request (table approvals,
// GitLab's name). A user approves a merge request at most once.
type Approval struct {
	ID             int64     `gorm:"primaryKey" json:"id"`
	MergeRequestID int64     `json:"merge_request_id"`
	UserID         int64     `json:"user_id"`
	CreatedAt      time.Time `json:"created_at"`

	User *User `gorm:"foreignKey:UserID" json:"user,omitempty"`
}

// Discussion is a thread of notes sharing one discussion id, oldest note
// first. Individual is true for a stand-alone comment (a thread of one
// note that nobody replied to).
type Discussion struct {
	ID         string
	Individual bool
	Notes      []Note
}

// Resolvable reports whether the discussion can be resolved (it holds at
// least one resolvable note).
func (d *Discussion) Resolvable() bool {
	for k := range d.Notes {
		if d.Notes[k].Resolvable() {
			return true
		}
	}
	return false
}

// Resolved reports whether every resolvable note of the discussion is
// resolved (false for a discussion that cannot be resolved).
func (d *Discussion) Resolved() bool {
	any := false
	for k := range d.Notes {
		if !d.Notes[k].Resolvable() {
			continue
		}
		any = true
		if d.Notes[k].ResolvedAt == nil {
			return false
		}
	}
	return any
}

// DiscussionPageQuery selects a page of a noteable's discussions, ordered
// by their first note, keyset-paged by AfterNoteID (the first note of the
// last discussion of the previous page).
type DiscussionPageQuery struct {
	NoteableType    NoteableType
	NoteableID      int64
	IncludeInternal bool
	AfterNoteID     int64
	Limit           int
	// Filter chooses the notes the discussions are made of; the zero value
	// is comments only (system notes left out).
	Filter NotesFilter
}

// NotesFilter chooses which notes a page of discussions holds (GitLab's
// NotesFilterType).
type NotesFilter int

const (
	// OnlyComments leaves system notes out.
	OnlyComments NotesFilter = iota
	// AllNotes holds comments and system notes.
	AllNotes
	// OnlyActivity holds system notes only.
	OnlyActivity
)
