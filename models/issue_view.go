package models

// IssueView is everything get_issue shows, read at once: the project with
// the caller's role in it, the issue with its author and assignees, and
// its note counts. It carries no permission decision.
type IssueView struct {
	Project *Project
	// Level is the caller's effective role in Project.
	Level AccessLevel
	// Issue comes with its author and its assignees (ordered by user id).
	Issue *Issue
	// Notes and PublicNotes count the issue's user (non-system) notes with
	// and without internal ones.
	Notes, PublicNotes int64
}
