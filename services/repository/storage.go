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
	"sync"
	"syscall"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/catfile"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

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
		return r.refs.setHead(defaultBranch)
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
