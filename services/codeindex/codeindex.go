// Package codeindex keeps the code index semantic_search ranks: the text
// files of each project's default branch, read from its git repository
// into the repository_files table, with the commit they were read at in
// index_statuses.
//
// The index is checked on use, not trusted: [Indexer.Ensure] compares the
// branch's head in git with the indexed commit and re-indexes when they
// differ, so a push with plain git to the repository's path is seen by
// the next search. A re-index is incremental when it can be: it diffs the
// trees of the indexed commit and the head (any two commits, related or
// not) and replaces the rows of the changed paths only
// (store.UpdateCodeIndex). It is full — the whole tree at the head read,
// every row of the project replaced (store.ReplaceCodeIndex) — when there
// is no index of the branch to start from, the indexed commit is no longer
// in the repository (a force-push and a gc), the diff has more than
// max(minChanges, half the indexed files) paths, or the index is at one of
// its bounds before or after (see below). Either is one transaction
// guarded by a compare-and-swap on the indexed commit: of two
// re-indexers, in one process or in two, one writes and the other writes
// nothing and uses its index; a search never sees a half-updated one.
// [Indexer.Refresh] re-indexes off the request path when glmcp itself
// moves a branch, so the next search usually finds the index current;
// nothing depends on it.
//
// Re-indexes, of searches and of Refresh alike, take one of the process's
// maxReindexes slots (a semaphore of the package, shared by every
// Indexer), so many searches of moved projects hold at most that many
// trees. A search that has an index of the branch, at an older head, waits
// for a slot at most staleWait and is then served that index.
//
// What is indexed: regular and executable files that are text — valid
// UTF-8 without a NUL byte — of at most MaxFileBytes (entry decides, for
// both kinds of re-index). Binary files, larger files, symbolic links and
// submodules are skipped; so is everything past MaxFiles files or
// MaxTotalBytes of content (in git's path order), which bounds what one
// re-index reads and holds. Which files that cut keeps depends on their
// order in the whole tree, so an index that may have been cut (at
// MaxFiles files, or within MaxFileBytes of MaxTotalBytes) or that would
// be is re-indexed fully: the incremental and the full re-index of a head
// always leave the same rows.
package codeindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository"
)

// Bounds of what one project's index holds.
const (
	// MaxFileBytes is the largest file indexed. It also keeps a file's
	// PostgreSQL tsvector well under its 1 MB limit.
	MaxFileBytes = 256 << 10
	// MaxFiles is the most files indexed per project.
	MaxFiles = 50_000
	// MaxTotalBytes is the most content indexed per project.
	MaxTotalBytes = 64 << 20
)

// refreshTimeout bounds one background re-index.
const refreshTimeout = 2 * time.Minute

// maxRefreshes bounds the background refreshes of one Indexer that run at
// once (status read, wait for the project and a re-index slot, re-index);
// the others wait their turn.
const maxRefreshes = 4

// maxReindexes bounds the re-indexes running at once in the process, those
// of searches and those of Refresh alike: each holds up to MaxTotalBytes
// of content.
const maxReindexes = 2

// reindexSlots are the process's maxReindexes re-index slots, shared by
// every Indexer.
var reindexSlots = make(chan struct{}, maxReindexes)

// staleWait is how long a search of a project whose index is of an older
// head of the branch waits to re-index it (for a slot, or for this
// process's re-index of the project) before it is served that index.
const staleWait = 5 * time.Second

// Store is what the index needs of the data store; the store's CodeIndex
// and Projects families together satisfy it.
type Store interface {
	IndexStatus(ctx context.Context, projectID int64) (*models.IndexStatus, error)
	ReplaceCodeIndex(ctx context.Context, prev *models.IndexStatus, next *models.IndexStatus, files []models.RepositoryFile) (bool, error)
	UpdateCodeIndex(ctx context.Context, prev *models.IndexStatus, next *models.IndexStatus, remove []string, files []models.RepositoryFile, check func(before, after models.CodeIndexSize) error) (bool, error)
	FindProjectByID(ctx context.Context, id int64) (*models.Project, error)
}

// Repositories opens projects' git repositories; *repository.Storage
// satisfies it.
type Repositories interface {
	Repository(ctx context.Context, projectID int64) (repository.Repository, error)
}

// Indexer keeps projects' code indexes current. It is safe for concurrent
// use; Close stops its background work.
type Indexer struct {
	store Store
	repos Repositories
	log   *slog.Logger

	mu      sync.Mutex
	locks   map[int64]*projectLock
	pending map[int64]bool
	closed  bool

	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup
	// refreshing bounds the background refreshes under way (maxRefreshes):
	// each reads the project's index status before it knows whether there
	// is anything to do, and an import that moves thousands of projects'
	// refs must not run thousands of those reads at once.
	refreshing chan struct{}

	// staleWait is the package's staleWait (shorter in tests).
	staleWait time.Duration
	// maxFiles and maxTotalBytes are MaxFiles and MaxTotalBytes (lower in
	// tests).
	maxFiles      int
	maxTotalBytes int64
	// fullOnly turns the incremental re-index off (benchmarks compare).
	fullOnly bool
	// reindexed, when set, is called after each re-index that wrote the
	// index, saying whether it was incremental.
	reindexed func(projectID int64, incremental bool)
	// reindexing, when set, is called by each re-index holding its slot,
	// before it reads the tree (tests count and hold re-indexes with it).
	reindexing func(projectID int64)
}

type projectLock struct {
	ch    chan struct{}
	users int
}

// New returns an indexer over st and repos; log (nil: discarded) gets
// the failures of background re-indexes.
func New(st Store, repos Repositories, log *slog.Logger) *Indexer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Indexer{store: st, repos: repos, log: log, locks: map[int64]*projectLock{}, pending: map[int64]bool{},
		ctx: ctx, cancel: cancel, refreshing: make(chan struct{}, maxRefreshes),
		staleWait: staleWait, maxFiles: MaxFiles, maxTotalBytes: MaxTotalBytes}
}

// Close cancels the background re-indexes and waits for them to end.
// Ensure still works after Close; Refresh does nothing.
func (ix *Indexer) Close() {
	ix.mu.Lock()
	ix.closed = true
	ix.mu.Unlock()
	ix.cancel()
	ix.bg.Wait()
}

// Ensure makes project projectID's index hold branch at its current head
// in git, re-indexing when it does not, and returns what the index holds.
// When another re-indexer replaced the index first, that index is
// returned (it may be of a head read a moment earlier; the next Ensure
// catches up). A branch that does not exist (an empty repository) is an
// empty index with LastCommit "".
//
// A re-index waits for one of the process's re-index slots (maxReindexes,
// shared with Refresh), after this process's re-index of the same project
// if one runs. When the project has an index of branch, at an older head,
// Ensure waits for them at most staleWait and then returns that index as
// it is (a later search catches up); without one (never indexed, or of
// another branch) it waits as long as ctx lets it.
func (ix *Indexer) Ensure(ctx context.Context, projectID int64, branch string) (*models.IndexStatus, error) {
	repo, err := ix.repos.Repository(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("code index of project %d: %w", projectID, err)
	}
	defer repo.Close()
	// The status before the head: a head read after a status is at least
	// as new as the one that status was built from.
	cur, head, err := ix.state(ctx, repo, projectID, branch)
	if err != nil || current(cur, branch, head) {
		return cur, err
	}
	wait := ctx
	if cur != nil && cur.Ref == branch {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, ix.staleWait)
		defer cancel()
	}
	// Gave up waiting: the index as it is, if it is one of branch.
	waited := func(err error) (*models.IndexStatus, error) {
		if ctx.Err() == nil && cur != nil && cur.Ref == branch {
			return cur, nil
		}
		return nil, err
	}
	unlock, err := ix.lock(wait, projectID)
	if err != nil {
		return waited(err)
	}
	defer unlock()
	// Another re-index in this process may have run while we waited.
	if cur, head, err = ix.state(ctx, repo, projectID, branch); err != nil || current(cur, branch, head) {
		return cur, err
	}
	if cur == nil || cur.Ref != branch { // replaced meanwhile: nothing to serve
		wait = ctx
	}
	release, err := acquireSlot(wait)
	if err != nil {
		return waited(err)
	}
	defer release()
	return ix.reindex(ctx, repo, projectID, branch, cur, head)
}

// acquireSlot takes one of the process's re-index slots, or fails when ctx
// ends first.
func acquireSlot(ctx context.Context) (func(), error) {
	select {
	case reindexSlots <- struct{}{}:
		return func() { <-reindexSlots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// reindex replaces project projectID's index cur with branch's files at
// head: by the files that changed since cur's commit when it can (update),
// else by the whole tree. The caller holds the project's lock and a
// re-index slot.
func (ix *Indexer) reindex(ctx context.Context, repo repository.Repository, projectID int64, branch string, cur *models.IndexStatus, head string) (*models.IndexStatus, error) {
	if ix.reindexing != nil {
		ix.reindexing(projectID)
	}
	next := models.IndexStatus{ProjectID: projectID, Ref: branch, LastCommit: head}
	won, err := ix.update(ctx, repo, cur, &next)
	incremental := err == nil
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("code index of project %d: %w", projectID, ctx.Err())
		}
		if !errors.Is(err, errFull) {
			// A commit or tree of cur not in the repository (a force-push
			// and a gc dropped it) or an unreadable one: the full
			// re-index below reads only head's.
			ix.log.Debug("code index: incremental re-index failed", "project_id", projectID, "error", err)
		}
		files, err := ix.readFiles(ctx, repo, head)
		if err != nil {
			return nil, fmt.Errorf("code index of project %d: read %s@%.12s: %w", projectID, branch, head, err)
		}
		if won, err = ix.store.ReplaceCodeIndex(ctx, cur, &next, files); err != nil {
			return nil, err
		}
	}
	if !won {
		return ix.status(ctx, projectID)
	}
	if ix.reindexed != nil {
		ix.reindexed(projectID, incremental)
	}
	return &next, nil
}

// errFull: an incremental re-index would cost more than a full one, or
// could not build the index a full one would; the caller re-indexes fully.
var errFull = errors.New("full re-index needed")

// minChanges is the most changed paths an incremental re-index takes
// whatever the size of the index; past it, up to half the files the index
// holds (more, and the rows rewritten near a full re-index's, whose one
// walk of the tree and one bulk delete are cheaper than a lookup per path).
const minChanges = 64

// changedFiles is the tree diff of an incremental re-index;
// *repository.Local has it.
type changedFiles interface {
	ChangedFiles(ctx context.Context, from, to string, opt repository.ChangedFilesOptions, fn func(path string, f *repository.File) error) error
}

// update moves project cur.ProjectID's index from cur to next by the files
// that differ between the trees of their commits (store.UpdateCodeIndex,
// under the same compare-and-swap as a full re-index). It reports whether
// it won the swap. errFull (or the error reading cur's commit) when it
// cannot: no index of the branch at a commit to diff against, no head, a
// repository without ChangedFiles, a diff of more than maxChanges paths,
// or an index at a bound (MaxFiles, MaxTotalBytes) before or after, where
// which files a full re-index keeps depends on their order in the tree and
// not only on the files.
func (ix *Indexer) update(ctx context.Context, repo repository.Repository, cur, next *models.IndexStatus) (bool, error) {
	diff, ok := repo.(changedFiles)
	if !ok || ix.fullOnly || cur == nil || cur.Ref != next.Ref || cur.LastCommit == "" || next.LastCommit == "" {
		return false, errFull
	}
	var remove []string
	files := []models.RepositoryFile{}
	opt := repository.ChangedFilesOptions{MaxBytes: MaxFileBytes, MaxChanges: max(minChanges, cur.Files/2)}
	err := diff.ChangedFiles(ctx, cur.LastCommit, next.LastCommit, opt, func(path string, f *repository.File) error {
		remove = append(remove, path)
		if f == nil {
			return nil
		}
		if row, ok := entry(f); ok {
			files = append(files, row)
		}
		return nil
	})
	if errors.Is(err, repository.ErrTooManyChanges) {
		return false, errFull
	}
	if err != nil {
		return false, err
	}
	return ix.store.UpdateCodeIndex(ctx, cur, next, remove, files, func(before, after models.CodeIndexSize) error {
		// A full index of cur's commit stopped at no bound: no file it
		// refused would have fit (none is larger than MaxFileBytes).
		// Nor does one of next's.
		if before.Files >= ix.maxFiles || before.Bytes > ix.maxTotalBytes-MaxFileBytes ||
			after.Files > ix.maxFiles || after.Bytes > ix.maxTotalBytes {
			return errFull
		}
		return nil
	})
}

// state returns the index status (nil: none) and then branch's head ("":
// no such branch).
func (ix *Indexer) state(ctx context.Context, repo repository.Repository, projectID int64, branch string) (*models.IndexStatus, string, error) {
	cur, err := ix.status(ctx, projectID)
	if err != nil {
		return nil, "", err
	}
	if branch == "" {
		return cur, "", nil
	}
	// The ref's hash only: a search of a current index reads no object.
	head, err := repo.RefHash(ctx, "refs/heads/"+branch)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return cur, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("code index of project %d: head of %s: %w", projectID, branch, err)
	}
	return cur, head, nil
}

func (ix *Indexer) status(ctx context.Context, projectID int64) (*models.IndexStatus, error) {
	st, err := ix.store.IndexStatus(ctx, projectID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	return st, err
}

func current(st *models.IndexStatus, branch, head string) bool {
	return st != nil && st.Ref == branch && st.LastCommit == head
}

// errIndexFull stops a tree walk at the index's bounds.
var errIndexFull = errors.New("code index full")

// entry decides what file f contributes to the index, alone: its row, or
// false when it is not indexed (binary, larger than MaxFileBytes, not
// UTF-8). The full and the incremental re-index both ask it, so they keep
// the same rows; the bounds on the whole index (MaxFiles, MaxTotalBytes)
// come on top.
func entry(f *repository.File) (models.RepositoryFile, bool) {
	if f.Binary || f.TooLarge || f.Size > MaxFileBytes || bytes.IndexByte(f.Content, 0) >= 0 || !utf8.Valid(f.Content) {
		return models.RepositoryFile{}, false
	}
	return models.RepositoryFile{FilePath: f.Path, Content: string(f.Content), Size: f.Size, BlobID: f.BlobID}, true
}

// readFiles reads the files of the tree at head that the index keeps:
// those entry keeps, in git's path order, up to the first that does not
// fit ix's bounds.
func (ix *Indexer) readFiles(ctx context.Context, repo repository.Repository, head string) ([]models.RepositoryFile, error) {
	files := []models.RepositoryFile{}
	if head == "" {
		return files, nil
	}
	var total int64
	_, err := repo.Files(ctx, head, repository.FilesOptions{MaxBytes: MaxFileBytes}, func(f *repository.File) error {
		row, ok := entry(f)
		if !ok {
			return nil
		}
		if len(files) == ix.maxFiles || total+row.Size > ix.maxTotalBytes {
			return errIndexFull
		}
		total += row.Size
		files = append(files, row)
		return nil
	})
	if err != nil && !errors.Is(err, errIndexFull) {
		return nil, err
	}
	return files, nil
}

// lock takes project projectID's re-index lock of this process, or fails
// when ctx ends first.
func (ix *Indexer) lock(ctx context.Context, projectID int64) (func(), error) {
	ix.mu.Lock()
	l := ix.locks[projectID]
	if l == nil {
		l = &projectLock{ch: make(chan struct{}, 1)}
		ix.locks[projectID] = l
	}
	l.users++
	ix.mu.Unlock()
	release := func() {
		ix.mu.Lock()
		if l.users--; l.users == 0 {
			delete(ix.locks, projectID)
		}
		ix.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// Refresh re-indexes project projectID in the background, if it has an
// index (a project nobody searched is indexed by its first search). It is
// meant for glmcp's own ref moves (repository.Storage.OnRefUpdate): it
// returns at once, and moves in quick succession share one re-index.
// Which ref moved does not matter: re-indexing an index that is current
// is one head check. Its re-indexes take the process's re-index slots as
// searches do, in the same order (the project's lock, then a slot).
func (ix *Indexer) Refresh(projectID int64) {
	ix.mu.Lock()
	if ix.closed || ix.pending[projectID] {
		ix.mu.Unlock()
		return
	}
	ix.pending[projectID] = true
	ix.bg.Add(1)
	ix.mu.Unlock()
	go func() {
		defer ix.bg.Done()
		started := false
		start := func() {
			// A move from here on queues another run.
			ix.mu.Lock()
			delete(ix.pending, projectID)
			ix.mu.Unlock()
			started = true
		}
		defer func() {
			if !started { // nothing to re-index, or closed before it ran
				start()
			}
		}()
		select {
		case ix.refreshing <- struct{}{}:
			defer func() { <-ix.refreshing }()
		case <-ix.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(ix.ctx, refreshTimeout)
		defer cancel()
		if err := ix.refresh(ctx, projectID, start); err != nil && ix.ctx.Err() == nil {
			ix.log.Warn("code index refresh", "project_id", projectID, "error", err)
		}
	}()
}

// refresh re-indexes project projectID if it has an index, calling start
// once it holds the project's lock and a re-index slot, before it reads
// the head.
func (ix *Indexer) refresh(ctx context.Context, projectID int64, start func()) error {
	// Most projects moved were never searched: they take no slot.
	if st, err := ix.status(ctx, projectID); err != nil || st == nil {
		return err
	}
	unlock, err := ix.lock(ctx, projectID)
	if err != nil {
		return err
	}
	defer unlock()
	release, err := acquireSlot(ctx)
	if err != nil {
		return err
	}
	defer release()
	start()
	p, err := ix.store.FindProjectByID(ctx, projectID)
	if errors.Is(err, models.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	repo, err := ix.repos.Repository(ctx, projectID)
	if err != nil {
		return fmt.Errorf("code index of project %d: %w", projectID, err)
	}
	defer repo.Close()
	cur, head, err := ix.state(ctx, repo, projectID, p.DefaultBranch)
	if err != nil || current(cur, p.DefaultBranch, head) {
		return err
	}
	_, err = ix.reindex(ctx, repo, projectID, p.DefaultBranch, cur, head)
	return err
}
