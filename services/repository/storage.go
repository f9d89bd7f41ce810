package repository

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/catfile"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// largeObjectThreshold is the size above which a packed, undeltified blob
// is streamed from the pack instead of being inflated into memory.
const largeObjectThreshold = 1 << 20

// Storage is the directory holding every project's repository. It is safe
// for concurrent use.
//
// Opening a repository parses its pack indexes, which costs time and memory
// in proportion to the number of objects (hundreds of milliseconds for a
// 50,000-commit history). So a closed Local is kept idle and handed to the
// next Open of the same project, as long as the set of pack files is
// unchanged (pack files are immutable and named by their content; a push
// or repack that adds or removes one makes the next Open start afresh).
// Refs and loose objects are never cached: every call reads them from disk.
// An idle Local is used by one request at a time, never shared.
type Storage struct {
	root string
	git  *gitcmd.Runner
	cat  *catfile.Pool
	hk   *Housekeeper

	mu        sync.Mutex
	idle      map[int64][]*Local
	nIdle     int
	onRefMove func(projectID int64, ref string)
}

// OnRefUpdate sets fn to be called after glmcp moved, created or deleted a
// branch or tag of a repository of s (ref is its short name, "main" or
// "v1.0"). It runs synchronously after the ref update succeeded and must
// not fail it; a push with plain git to a path clone does not call it.
func (s *Storage) OnRefUpdate(fn func(projectID int64, ref string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRefMove = fn
}

func (s *Storage) refWatcher() func(int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onRefMove
}

// Bounds of the idle pool.
const (
	maxIdlePerRepository = 2
	maxIdle              = 16
)

// StorageOptions configure a Storage.
type StorageOptions struct {
	// Git runs the git command line (default: gitcmd.Default()).
	Git *gitcmd.Runner
}

// OpenStorage checks that root is an existing, writable directory and that
// git is installed, and returns the storage rooted there. The error says
// what is wrong, so the operator can fix GLMCP_REPOSITORIES_PATH or
// install git.
func OpenStorage(root string) (*Storage, error) {
	return OpenStorageWith(root, StorageOptions{})
}

// OpenStorageWith is OpenStorage with options.
func OpenStorageWith(root string, opt StorageOptions) (*Storage, error) {
	if opt.Git == nil {
		g, err := gitcmd.Default()
		if err != nil {
			return nil, err
		}
		opt.Git = g
	}
	if root == "" {
		return nil, fmt.Errorf("repositories path is empty: %w", models.ErrInvalidInput)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("repositories path %q: %w", root, err)
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("repositories path %q does not exist (create it first)", root)
	case err != nil:
		return nil, fmt.Errorf("repositories path %q: %w", root, err)
	case !info.IsDir():
		return nil, fmt.Errorf("repositories path %q is not a directory", root)
	}
	probe, err := os.CreateTemp(abs, ".glmcp-write-check-*")
	if err != nil {
		return nil, fmt.Errorf("repositories path %q is not writable by this process: %w", root, err)
	}
	name := probe.Name()
	probe.Close()
	if err := os.Remove(name); err != nil {
		return nil, fmt.Errorf("repositories path %q: remove write check: %w", root, err)
	}
	s := &Storage{root: abs, git: opt.Git, cat: catfile.New(opt.Git, catfile.Options{}), idle: map[int64][]*Local{}}
	s.hk = newHousekeeper(s)
	// What imports killed mid-copy left behind (see StageImport).
	s.SweepStaging()
	return s, nil
}

// writeCheckPattern names CheckWritable's probe files.
const writeCheckPattern = ".glmcp-write-check-*"

// CheckWritable reports whether a write to the storage can succeed now: it
// writes a page to a file in the staging directory and removes it. A full
// disk, an exhausted quota or a read-only mount is
// models.ErrInsufficientStorage.
func (s *Storage) CheckWritable(context.Context) error {
	dir := filepath.Join(s.root, StagingDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("repositories path: %w", storageError(err))
	}
	f, err := os.CreateTemp(dir, writeCheckPattern)
	if err != nil {
		return fmt.Errorf("repositories path: %w", storageError(err))
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, 4096))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("repositories path: %w", storageError(err))
	}
	return nil
}

// Git returns the runner the storage starts git with.
func (s *Storage) Git() *gitcmd.Runner { return s.git }

// Root returns the absolute storage directory.
func (s *Storage) Root() string { return s.root }

// HashedPath returns GitLab's hashed-storage path of project id's
// repository, relative to the storage root:
// "@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git" for 1.
func HashedPath(projectID int64) string {
	sum := sha256.Sum256([]byte(strconv.FormatInt(projectID, 10)))
	h := hex.EncodeToString(sum[:])
	return "@hashed/" + h[0:2] + "/" + h[2:4] + "/" + h + ".git"
}

// Path returns the absolute directory of project id's repository.
func (s *Storage) Path(projectID int64) string {
	return filepath.Join(s.root, filepath.FromSlash(HashedPath(projectID)))
}

// Create makes project id's empty bare repository with HEAD on
// defaultBranch. An existing repository without refs (left by a rolled
// back project creation) is reused; one with refs is models.ErrConflict.
func (s *Storage) Create(ctx context.Context, projectID int64, defaultBranch string) error {
	if projectID <= 0 {
		return fmt.Errorf("create repository: project id %d: %w", projectID, models.ErrInvalidInput)
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	if err := ValidateBranchName(defaultBranch); err != nil {
		return fmt.Errorf("create repository: %w", err)
	}
	dir := s.Path(projectID)
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		r, err := s.Open(ctx, projectID)
		if err != nil {
			return err
		}
		defer r.Close()
		branches, err := r.Branches(ctx)
		if err != nil {
			return err
		}
		if len(branches) > 0 {
			return fmt.Errorf("create repository for project %d: %s already has branches: %w", projectID, HashedPath(projectID), models.ErrConflict)
		}
		return r.setHead(defaultBranch)
	}
	// Made whole in the staging directory and renamed into place: a
	// failure (a full disk) or a crash leaves nothing in @hashed.
	st, err := s.newStage()
	if err != nil {
		return fmt.Errorf("create repository for project %d: %w", projectID, storageError(err))
	}
	defer st.Discard()
	if err := initBare(st.repo(), defaultBranch); err != nil {
		return fmt.Errorf("create repository for project %d: %w", projectID, storageError(err))
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create repository for project %d: %w", projectID, storageError(err))
	}
	err = os.Rename(st.repo(), dir)
	if (errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY)) && !s.Exists(projectID) {
		// A directory that is no repository (what a crash in an older
		// version left): out of the way, and kept.
		if _, qerr := s.quarantine(dir); qerr == nil {
			err = os.Rename(st.repo(), dir)
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fmt.Errorf("create repository for project %d: %s was created meanwhile: %w", projectID, HashedPath(projectID), models.ErrConflict)
		}
		return fmt.Errorf("create repository for project %d: %w", projectID, storageError(err))
	}
	return nil
}

// initBare makes an empty bare repository in dir with HEAD on branch.
func initBare(dir, branch string) error {
	_, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		Bare:        true,
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(branch)},
	})
	if err != nil {
		return err
	}
	// git itself ignores core.bare in a config without
	// repositoryformatversion; write the config git init writes.
	return os.WriteFile(filepath.Join(dir, "config"), []byte(gitConfig), 0o644)
}

// gitConfig is the config of a new bare repository, as git init writes it.
const gitConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"

// Exists reports whether project id has a repository on disk.
func (s *Storage) Exists(projectID int64) bool {
	_, err := os.Stat(filepath.Join(s.Path(projectID), "HEAD"))
	return err == nil
}

// Remove deletes project id's repository (used to undo a creation whose
// database transaction failed). A missing repository is not an error.
func (s *Storage) Remove(projectID int64) error {
	if projectID <= 0 {
		return nil
	}
	s.dropIdle(projectID)
	s.cat.Evict(s.Path(projectID))
	if err := os.RemoveAll(s.Path(projectID)); err != nil {
		return fmt.Errorf("remove repository of project %d: %w", projectID, err)
	}
	return nil
}

// dropIdle closes the idle Locals of project id (its directory is about
// to go or to be replaced).
func (s *Storage) dropIdle(projectID int64) {
	s.mu.Lock()
	idle := s.idle[projectID]
	delete(s.idle, projectID)
	s.nIdle -= len(idle)
	s.mu.Unlock()
	for _, l := range idle {
		l.st.Close()
	}
}

// Open returns project id's repository, read fresh from disk. A project
// without a repository is models.ErrNotFound. Close it when done.
func (s *Storage) Open(ctx context.Context, projectID int64) (*Local, error) {
	if !s.Exists(projectID) {
		return nil, fmt.Errorf("repository of project %d: %w", projectID, models.ErrNotFound)
	}
	dir := s.Path(projectID)
	packs, err := packSet(dir)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	var l *Local
	if list := s.idle[projectID]; len(list) > 0 {
		l = list[len(list)-1]
		s.idle[projectID] = list[:len(list)-1]
		s.nIdle--
	}
	s.mu.Unlock()
	if l != nil && l.packs != packs {
		l.st.Close()
		l = nil
	}
	if l == nil {
		if l, err = openLocal(dir); err != nil {
			return nil, err
		}
		l.git, l.cat = s.git, s.cat
		l.packs, l.pool, l.projectID = packs, s, projectID
		s.hk.noteOpen(projectID, dir)
	}
	l.open, l.ctx = true, ctx
	return l, nil
}

// Close releases every idle repository. Repositories in use stay valid and
// are closed, not pooled, when their user closes them.
func (s *Storage) Close() error {
	s.hk.Close()
	defer s.cat.Close()
	s.mu.Lock()
	idle := s.idle
	s.idle, s.nIdle = map[int64][]*Local{}, maxIdle // nothing is pooled any more
	s.mu.Unlock()
	for _, list := range idle {
		for _, l := range list {
			l.st.Close()
		}
	}
	return nil
}

// Repository is Open as the Repository interface (what the tools use).
func (s *Storage) Repository(ctx context.Context, projectID int64) (Repository, error) {
	l, err := s.Open(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// release takes back a closed Local into the idle pool, or closes it.
func (s *Storage) release(l *Local) error {
	s.mu.Lock()
	if len(s.idle[l.projectID]) < maxIdlePerRepository && s.nIdle < maxIdle {
		s.idle[l.projectID] = append(s.idle[l.projectID], l)
		s.nIdle++
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return l.st.Close()
}

// packSet names the repository's pack files (content-addressed, so the
// names identify the contents).
func packSet(dir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "objects", "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list packs: %w", err)
	}
	var b strings.Builder
	for _, e := range entries { // sorted by name
		if strings.HasSuffix(e.Name(), ".idx") || strings.HasSuffix(e.Name(), ".pack") {
			b.WriteString(e.Name())
			b.WriteByte(0)
		}
	}
	return b.String(), nil
}

// openLocal opens the bare repository in dir.
func openLocal(dir string) (*Local, error) {
	fsys := objectFS{Filesystem: osfs.New(dir), temps: &tempFiles{}}
	st := filesystem.NewStorageWithOptions(fsys, cache.NewObjectLRU(4*cache.MiByte), filesystem.Options{
		LargeObjectThreshold: largeObjectThreshold,
		// Keep pack files open for the life of the Local (one request):
		// otherwise every object read reopens its pack.
		KeepDescriptors: true,
	})
	l := &Local{dir: dir, st: st}
	repo, err := git.Open(objectStore{Storage: st, l: l}, nil)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", filepath.Base(dir), err)
	}
	l.repo = repo
	return l, nil
}

// objectFS is the repository's file system for go-git, which writes a
// loose object into a temporary file and renames it to
// objects/<xx>/<rest>. Housekeeping (git repack -d, prune-packed) removes
// the objects/<xx> directories it empties, so a rename can find its
// directory gone between go-git's mkdir and the rename; git itself
// retries then, and so does this rename.
type objectFS struct {
	billy.Filesystem
	temps *tempFiles
}

func (f objectFS) Rename(from, to string) (err error) {
	defer func() {
		if err != nil && strings.HasPrefix(filepath.Base(from), "tmp_") {
			_ = f.Filesystem.Remove(from) // a temporary object nobody will rename
		}
		f.temps.done(from)
	}()
	err = f.Filesystem.Rename(from, to)
	for range 5 {
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if _, serr := f.Filesystem.Stat(from); serr != nil {
			return err // the source is what is missing
		}
		if merr := f.Filesystem.MkdirAll(filepath.Dir(to), 0o755); merr != nil {
			return err
		}
		err = f.Filesystem.Rename(from, to)
	}
	return err
}

// TempFile is the file go-git writes a new object or pack into before
// renaming it into place. It is flocked from its creation until it is
// renamed or removed (go-git closes it before the rename), so that the
// sweep after a crash (see Storage.Recover) tells a dead writer's file
// from a live one's. go-git leaves it behind when a write fails (a full
// disk): it removes itself then, so a failed write leaves nothing.
func (f objectFS) TempFile(dir, prefix string) (billy.File, error) {
	for {
		t, err := f.Filesystem.TempFile(dir, prefix)
		if err != nil {
			return nil, storageError(err)
		}
		err = t.Lock()
		for errors.Is(err, syscall.EINTR) {
			err = t.Lock()
		}
		// A sweep may have taken the fresh file for a dead writer's and
		// removed it before the lock: then take another.
		if _, serr := f.Filesystem.Lstat(t.Name()); err != nil || serr != nil {
			t.Close()
			if err != nil {
				_ = f.Filesystem.Remove(t.Name())
				return nil, err
			}
			continue
		}
		o := &tempObject{File: t, fs: f.Filesystem, reg: f.temps}
		f.temps.add(t.Name(), o)
		return o, nil
	}
}

func (f objectFS) Remove(name string) error {
	err := f.Filesystem.Remove(name)
	f.temps.done(name)
	return err
}

// tempFiles are the temporary files of a repository being written, by
// name.
type tempFiles struct {
	mu    sync.Mutex
	files map[string]*tempObject
}

func (r *tempFiles) add(name string, o *tempObject) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = map[string]*tempObject{}
	}
	r.files[name] = o
}

// done releases the temporary file name, renamed or removed.
func (r *tempFiles) done(name string) {
	r.mu.Lock()
	o := r.files[name]
	delete(r.files, name)
	r.mu.Unlock()
	if o != nil {
		o.release()
	}
}

// tempObject is a temporary object file. Its Close keeps the descriptor
// (and the flock) until the file is renamed or removed; a failed write
// removes it.
type tempObject struct {
	billy.File
	fs  billy.Filesystem
	reg *tempFiles

	mu       sync.Mutex
	released bool
}

func (t *tempObject) Write(p []byte) (int, error) {
	n, err := t.File.Write(p)
	if err != nil {
		t.discard()
		return n, storageError(err)
	}
	return n, nil
}

// Close is deferred to release; the data is in the kernel already.
func (t *tempObject) Close() error { return nil }

func (t *tempObject) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.released {
		t.released = true
		_ = t.File.Close()
	}
}

// discard closes and removes the file.
func (t *tempObject) discard() {
	_ = t.fs.Remove(t.File.Name())
	t.reg.done(t.File.Name())
}
