package models

// SearchScope names what a search looks for (GitLab's search API scopes).
type SearchScope string

// Search scopes glmcp implements.
const (
	SearchProjects      SearchScope = "projects"
	SearchIssues        SearchScope = "issues"
	SearchMergeRequests SearchScope = "merge_requests"
	SearchNotes         SearchScope = "notes"
	SearchBlobs         SearchScope = "blobs"
	SearchUsers         SearchScope = "users"
	SearchWorkItems     SearchScope = "work_items"
	SearchGroups        SearchScope = "groups"
	SearchMilestones    SearchScope = "milestones"
	SearchWikiBlobs     SearchScope = "wiki_blobs"
	SearchCommits       SearchScope = "commits"
	SearchSnippetTitles SearchScope = "snippet_titles"
)

// SearchCountCap is how far a search counts its matches: a total up to
// the cap is exact; a total above it means "more than SearchCountCap" (the
// tools show no total then, as GitLab shows "1,000+"), and is then larger
// than Offset plus the page's length exactly when another page follows.
// Counting every match of a common term in a large project would read
// them all for a number nobody reads.
const SearchCountCap = 1000

// SearchQuery is one page of a permission-scoped search. Only what Viewer
// may read is ever matched or counted (GitLab's rules, see package
// services/access): an invisible object neither appears nor counts.
type SearchQuery struct {
	// Viewer is the searching user; nil or inactive matches nothing.
	Viewer *User
	// Term is matched case-insensitively as a substring.
	Term string
	// ProjectID, when > 0, limits the search to that project.
	ProjectID int64
	// GroupPath, when set, limits the search to the projects of that group
	// and its subgroups (a full path, e.g. "gitlab-org").
	GroupPath string
	// State filters issues ("opened", "closed") and merge requests
	// ("opened", "closed", "merged"); empty means any.
	State string
	// Confidential, when set, filters issues by confidentiality.
	Confidential *bool
	// TitleOnly matches issues and merge requests on the title only
	// (GitLab's fields=[title]); otherwise title and description.
	TitleOnly bool
	// Ascending orders by creation time oldest first (default newest).
	Ascending bool
	// Blob filters (GitLab's filename:, extension: and path: search
	// syntax): Filename matches the file's base name ("*" is a wildcard),
	// Extension its extension without the dot, Path a prefix-free
	// substring of its path. Term may then be empty.
	Filename, Extension, Path string
	// Lockdown leaves out matches in text lockdown withholds
	// (doc/security.md): note bodies, issue and merge request descriptions
	// written by users below Developer in a project that is not private.
	// Titles still match.
	Lockdown bool
	// Limit and Offset select the page.
	Limit, Offset int
}

// NotePageQuery selects one page of a noteable's notes in (created_at, id)
// order, with relay-style cursors given as note ids.
type NotePageQuery struct {
	NoteableType NoteableType
	NoteableID   int64
	// IncludeInternal includes internal notes (the caller checked the
	// viewer may read them).
	IncludeInternal bool
	// AfterID and BeforeID, when > 0, bound the page to notes strictly
	// after / before that note.
	AfterID, BeforeID int64
	// Limit is the page size. FromEnd takes the last Limit notes of the
	// window instead of the first (relay's "last").
	Limit   int
	FromEnd bool
}

// NotePage is a page of notes, oldest first, and whether notes exist beyond
// either end of it (within the visible notes of the noteable).
type NotePage struct {
	Notes       []Note
	HasNext     bool
	HasPrevious bool
}

// CodeSearchQuery is a ranked search over a project's files at one ref.
type CodeSearchQuery struct {
	ProjectID int64
	Ref       string
	// Directory, when set, limits the search to files under it
	// ("app/services").
	Directory string
	// Terms are lower-case words; a file matching any of them is a
	// candidate, ranked by how well it matches all of them.
	Terms []string
	Limit int
}

// CodeSearchHit is one ranked file. Score is the PostgreSQL text-search
// rank (ts_rank_cd) or, on SQLite, a term-frequency score; higher is
// better, and scores are comparable only within one search.
type CodeSearchHit struct {
	File  RepositoryFile
	Score float64
}
