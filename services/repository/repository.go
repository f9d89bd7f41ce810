package repository

import (
	"context"
	"time"
)

// Repository is everything glmcp asks of a project's git repository. The
// tools use only this interface; each method is one Gitaly RPC away from a
// remote implementation (see doc/architecture.md).
type Repository interface {
	// Close releases what the repository holds open (pack files).
	Close() error
	// DefaultBranch returns the branch HEAD names ("main").
	DefaultBranch(ctx context.Context) (string, error)
	// Blob reads the file at path in ref, bounded by opt (TreeEntry).
	Blob(ctx context.Context, ref, path string, opt BlobOptions) (*Blob, error)
	// Tree lists the tree at path in ref, one page at a time (GetTreeEntries).
	Tree(ctx context.Context, ref, path string, opt TreeOptions) (*TreePage, error)
	// Files calls fn with every file of the tree rev names, with its
	// content when it is text within opt's bound, and returns the commit
	// rev resolved to (ListBlobs with paths, over GetTreeEntries).
	Files(ctx context.Context, rev string, opt FilesOptions, fn func(*File) error) (string, error)
	// Commit returns the commit rev names (FindCommit).
	Commit(ctx context.Context, rev string) (*Commit, error)
	// RefHash returns the object id the full ref name ("refs/heads/main")
	// points at, a symbolic ref followed, without reading the object;
	// models.ErrNotFound when there is no such ref (ListRefs with the name
	// as its one pattern).
	RefHash(ctx context.Context, name string) (string, error)
	// CommitDiff returns the diff rev introduces against its first parent
	// (CommitDiff).
	CommitDiff(ctx context.Context, rev string, opt CompareOptions) ([]FileDiff, error)
	// Log lists commits newest first, one page at a time (ListCommits).
	Log(ctx context.Context, opt LogOptions) (*LogPage, error)
	// LogTotal is one page of a log and the number of commits of all its
	// pages (up to opt.CountLimit), in one walk; with Reverse oldest first
	// (LogTotal).
	LogTotal(ctx context.Context, opt LogOptions) ([]Commit, int, error)
	// ListFiles returns every file path of rev's tree in tree order
	// (ListFiles).
	ListFiles(ctx context.Context, rev string) ([]string, error)
	// GrepFiles returns the paths of the text files of rev's tree whose
	// content contains term, ignoring case, in tree order
	// (SearchFilesByContent).
	GrepFiles(ctx context.Context, rev, term string) ([]string, error)
	// IsAncestor reports whether ancestor is reachable from descendant
	// (CommitIsAncestor).
	IsAncestor(ctx context.Context, ancestor, descendant string) (bool, error)
	// CommitFiles applies actions on top of a branch and moves the branch
	// to the new commit with a compare-and-swap (UserCommitFiles).
	CommitFiles(ctx context.Context, req CommitFilesRequest) (*Commit, error)
	// CreateBranch creates branch name at start (UserCreateBranch).
	CreateBranch(ctx context.Context, name, start string) (*Branch, error)
	// DeleteBranch deletes branch name if it still points at expectedSHA
	// (empty: wherever it points) (UserDeleteBranch).
	DeleteBranch(ctx context.Context, name, expectedSHA string) error
	// Branches lists the branches by name (FindAllBranches).
	Branches(ctx context.Context) ([]Branch, error)
	// Tags lists the tags by name (FindAllTags).
	Tags(ctx context.Context) ([]Tag, error)
	// CreateTag creates a tag, annotated when it has a message
	// (UserCreateTag).
	CreateTag(ctx context.Context, req TagRequest) (*Tag, error)
	// Compare returns what head adds to base since their merge base: the
	// commits and the file diffs (FindMergeBase + ListCommits + CommitDiff).
	Compare(ctx context.Context, base, head string, opt CompareOptions) (*Comparison, error)
	// Conflicts lists the files a merge of source into target would leave
	// conflicted (ListConflictFiles).
	Conflicts(ctx context.Context, target, source string) ([]Conflict, error)
	// Merge merges a source ref into a target branch (UserMergeBranch,
	// UserFFBranch, UserSquash).
	Merge(ctx context.Context, req MergeRequest) (*MergeResult, error)
}

// BlobOptions bound a Blob read. Lines are 1-based; zero values mean from
// the first line, all lines, DefaultMaxBytes.
type BlobOptions struct {
	// FromLine is the first line returned (1-based; 0 = 1).
	FromLine int
	// Lines is how many lines to return at most (0 = to the end).
	Lines int
	// MaxBytes bounds the content returned; a text range longer than that
	// is cut at a line boundary and Truncated is set; a binary file larger
	// than that is models.ErrInvalidInput (it cannot be cut usefully).
	MaxBytes int64
	// ScanBytes, when above the bytes read for the range, keeps reading
	// (without keeping anything) up to that many bytes of the file to count
	// its lines: TotalLines is then the lines in that prefix, and EOF says
	// whether it was the whole file.
	ScanBytes int64
}

// DefaultMaxBytes is the content bound of a Blob read when none is given.
const DefaultMaxBytes = 1 << 20

// Blob is a file (or a range of its lines) read from a tree.
type Blob struct {
	Path     string
	Ref      string
	CommitID string // the commit ref resolved to
	BlobID   string
	Mode     string // "100644", "100755", "120000"
	Size     int64  // of the whole file, in bytes
	Binary   bool   // a NUL byte in the first 8,000 bytes, as git decides
	// Content is the text (of the requested lines), or the whole binary file.
	Content []byte
	// FromLine and ToLine are the 1-based lines in Content (text only;
	// ToLine < FromLine when the range is past the end).
	FromLine, ToLine int
	// TotalLines is set when the read reached the end of the file.
	TotalLines int
	// Truncated: more lines were asked for than MaxBytes allowed.
	Truncated bool
	// EOF: Content ends at the end of the file.
	EOF bool
}

// TreeOptions page a Tree listing.
type TreeOptions struct {
	Recursive bool
	// After is the path of the last entry of the previous page (exclusive).
	After string
	// Limit is the page size (0 = 100).
	Limit int
}

// TreeEntry is one entry of a tree listing.
type TreeEntry struct {
	ID   string
	Name string
	Path string // from the repository root
	Type string // "blob", "tree" or "commit" (a submodule)
	Mode string // "040000", "100644", …
}

// TreePage is one page of a Tree listing. Next is the After of the next
// page, empty on the last one.
type TreePage struct {
	CommitID string
	Entries  []TreeEntry
	Next     string
}

// Signature is an author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit.
type Commit struct {
	ID        string
	ParentIDs []string
	TreeID    string
	Title     string // the first line of Message
	Message   string
	Author    Signature
	Committer Signature
}

// LogOptions select and page commits, as git log's options do.
type LogOptions struct {
	Ref         string // "" = the default branch
	Path        string // only commits that change it (git's history simplification)
	Author      string // case-insensitive substring of "Name <email>"
	Since       time.Time
	Until       time.Time
	FirstParent bool
	// Grep keeps the commits whose message contains it (ignoring case).
	Grep string
	// Reverse lists the page oldest first (the page is still the one
	// Offset and Limit choose newest first).
	Reverse bool
	Offset  int
	Limit   int // 0 = 20
	// CountLimit bounds LogTotal's count, as GitLab's search counts: the
	// total is at most Offset + max(CountLimit, Limit), and newest first
	// git stops walking once it has printed that many commits. 0 counts
	// every commit.
	CountLimit int
}

// LogPage is one page of a log; More is set when another page follows.
type LogPage struct {
	Commits []Commit
	More    bool
}

// Action kinds of CommitFiles, GitLab's commit actions.
const (
	ActionCreate = "create"
	ActionUpdate = "update"
	ActionDelete = "delete"
	ActionMove   = "move"
	ActionChmod  = "chmod"
)

// Action is one change of a commit. Content is the new file (create,
// update, optionally move); OldStr/NewStr instead replace exactly one
// occurrence of OldStr in the current file (update).
type Action struct {
	Action          string
	FilePath        string
	PreviousPath    string // move
	Content         []byte
	HasContent      bool  // Content was given (move keeps the old content without it)
	ExecuteFilemode *bool // create, update, move, chmod
	OldStr, NewStr  *string
	LastCommitID    string // update/delete/move: fail if the file changed since
}

// CommitFilesRequest is one commit on Branch. When Branch does not exist it
// is created from StartSHA or StartBranch (or as a root commit on an empty
// repository).
type CommitFilesRequest struct {
	Branch      string
	StartBranch string
	StartSHA    string
	Message     string
	Author      Signature
	// Committer dates the commit when its When is set (its name and
	// e-mail default to Author's); otherwise the commit is dated now.
	Committer Signature
	Actions   []Action
	// ExpectedOldSHA, when set, is the value Branch must still have.
	ExpectedOldSHA string
	// StartRepository, when set, is another project's repository (one
	// this project was forked from) in which StartSHA, else StartBranch,
	// names the commit to start from: Branch must not exist yet, and the
	// objects of the start commit this repository lacks are copied here
	// before the commit is written (UserCommitFiles' start_repository).
	StartRepository Repository
}

// Branch is a branch and the commit it points at.
type Branch struct {
	Name   string
	Commit Commit
}

// Tag is a tag; Message and Tagger are set for annotated tags.
type Tag struct {
	Name     string
	TargetID string // the tag object, or the commit for a lightweight tag
	Commit   Commit // the commit the tag peels to
	Message  string
	Tagger   *Signature
}

// TagRequest is a tag to create: Name at the commit Target names. With a
// Message it is an annotated tag by Tagger (dated now when Tagger.When is
// zero); without, a lightweight tag.
type TagRequest struct {
	Name    string
	Target  string
	Message string
	Tagger  Signature
}

// CompareOptions bound a Compare.
type CompareOptions struct {
	// MaxCommits bounds Commits (0 = 1,000).
	MaxCommits int
	// MaxPatchBytes collapses a file's patch above this size (0 = 200 KiB).
	MaxPatchBytes int
	// SkipDiffs leaves Files empty (commits only).
	SkipDiffs bool
	// SkipCommits leaves Commits empty (the diff only: one git process,
	// where the commits are a second walk beside it).
	SkipCommits bool
	// SkipPatches fills Files with paths and modes only: no patch text,
	// no line counts (a file list, cheap to compute).
	SkipPatches bool
}

// Comparison is head compared with base.
type Comparison struct {
	BaseSHA      string // base resolved
	HeadSHA      string // head resolved
	MergeBaseSHA string // "" when they share no history
	Commits      []Commit
	Files        []FileDiff
}

// FileDiff is one file's change, in GitLab's diff shape.
type FileDiff struct {
	OldPath, NewPath string
	AMode, BMode     string // "0" for a missing side
	NewFile          bool
	RenamedFile      bool
	DeletedFile      bool
	Binary           bool
	TooLarge         bool // the patch was collapsed (Diff is empty)
	Diff             string
	Additions        int
	Deletions        int
}

// Conflict is one file a merge would leave conflicted.
type Conflict struct {
	Path         string
	OurPath      string // in target ("" when deleted there)
	TheirPath    string // in source ("" when deleted there)
	Reason       string // "content", "modify/delete", "add/add", "type"
	OurContent   string
	TheirContent string
	BaseContent  string
	// Marked is the file as git leaves it conflicted: the merged text with
	// each conflicting region between conflict markers (<<<<<<< ours,
	// =======, >>>>>>> theirs, labelled with the path); set for text
	// conflicts ("content", "add/add") only.
	Marked string
}

// Merge methods.
const (
	MergeMethodMerge       = "merge"        // always a merge commit
	MergeMethodFastForward = "ff"           // only when target is an ancestor of source
	MergeMethodRebaseMerge = "rebase_merge" // merge commit, but source must contain target
)

// MergeRequest merges Source into the Target branch.
type MergeRequest struct {
	Source string // a branch name or commit
	Target string // a branch
	// ExpectedSourceSHA, when set, is what Source must resolve to (GitLab's
	// sha guard).
	ExpectedSourceSHA string
	// ExpectedTargetSHA, when set, is what Target must still point at.
	ExpectedTargetSHA string
	Method            string // MergeMethod*; "" = merge
	Squash            bool
	Message           string // merge commit message
	SquashMessage     string
	Author            Signature
	// Committer dates the merge (and squash) commit when its When is set
	// (its name and e-mail default to Author's); otherwise they are dated
	// now.
	Committer Signature
	// BeforeMove, when set, is called with the merge's result once its
	// commits are written and before the target branch moves; an error
	// stops the merge there (nothing moved). accept_merge_request records
	// its merge intent in it (see Storage.WriteMergeIntent).
	BeforeMove func(*MergeResult) error
}

// MergeResult is a successful merge.
type MergeResult struct {
	CommitID    string // the new head of Target
	SquashID    string // the squash commit, when squashed
	MergeBase   string
	FastForward bool
}
