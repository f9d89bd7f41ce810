package models

import "sync/atomic"

// IssueView is everything get_issue shows, read at once: the project with
// the caller's role in it, the issue with its author and assignees, and
// its note counts. It carries no permission decision.
//
// A view may come from the store's cache and be shared by concurrent
// readers: nothing in it may be modified.
type IssueView struct {
	Project *Project
	// Level is the caller's effective role in Project.
	Level AccessLevel
	// Issue comes with its author and its assignees (ordered by user id).
	Issue *Issue
	// Notes and PublicNotes count the issue's user (non-system) notes with
	// and without internal ones.
	Notes, PublicNotes int64

	memo atomic.Pointer[IssueViewMemo]
}

// IssueViewMemo is what a reader derived from a view (get_issue: its
// rendered answer), kept with the view for the next reader of the same
// cached view. Key tells what it was derived for; Value must not be
// modified.
type IssueViewMemo struct {
	Key   any
	Value any
}

// Memo returns what was last derived from v with key, if anything.
func (v *IssueView) Memo(key any) (any, bool) {
	if m := v.memo.Load(); m != nil && m.Key == key {
		return m.Value, true
	}
	return nil, false
}

// SetMemo keeps value, derived from v with key (replacing what was kept).
func (v *IssueView) SetMemo(key, value any) { v.memo.Store(&IssueViewMemo{Key: key, Value: value}) }
