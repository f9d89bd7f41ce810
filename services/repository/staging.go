package repository

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"gitlab.com/glmcp/glmcp/models"
)

// StagingDir is the directory of the storage root where imports are
// staged, outside @hashed (Gitaly's +gitaly/tmp): a repository is fetched
// there in full, and renamed into @hashed only once it is whole.
const StagingDir = "+tmp"

// A staged import is the repository import-<random>.git in StagingDir and
// its lock file import-<random>.lock, held with flock(2) by the process
// that stages it for as long as it lives: the kernel drops the lock when
// the process dies, however it dies, so a lock that can be taken marks a
// leftover to sweep. The lock file is created and locked before the
// repository directory exists, and removed after it is gone.
const (
	stagePrefix = "import-"
	stageRepo   = ".git"
	stageOld    = ".old" // the empty repository an install replaced
	stageLock   = ".lock"
)

// StagedImport is a repository imported into the staging directory, not
// yet any project's. Install it into a project, then Commit; Discard
// undoes whatever was not committed.
type StagedImport struct {
	s      *Storage
	base   string // <root>/+tmp/import-<random>
	lock   *os.File
	Result *ImportResult

	installed int64 // project whose repository it now is, until Commit
	replaced  bool  // an empty repository was moved to base+stageOld
	committed bool
}

// StageImport copies every branch and tag of the git repository at dir
// into a new repository in the staging directory, the way
// [Local.ImportWith] does (the same refs, HEAD rule and errors), and
// returns it staged. Nothing appears in @hashed; a directory that is no
// repository, or has nothing to import, is models.ErrInvalidInput and
// leaves nothing behind. Leftovers of imports whose process died are
// swept first.
func (s *Storage) StageImport(ctx context.Context, dir string, opt ImportOptions) (*StagedImport, error) {
	s.SweepStaging()
	src, refs, head, err := importSource(ctx, s.git, dir)
	if err != nil {
		return nil, err
	}
	st, err := s.newStage()
	if err != nil {
		return nil, err
	}
	if err := initBare(st.repo(), "main"); err != nil {
		st.Discard()
		return nil, err
	}
	if st.Result, err = copyInto(ctx, s.git, st.repo(), src, refs, head, opt); err != nil {
		st.Discard()
		return nil, err
	}
	return st, nil
}

func (st *StagedImport) repo() string { return st.base + stageRepo }

// newStage creates and locks a staging name of its own.
func (s *Storage) newStage() (*StagedImport, error) {
	tmp := filepath.Join(s.root, StagingDir)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("create the staging directory: %w", err)
	}
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		base := filepath.Join(tmp, stagePrefix+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(base+stageLock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create a staging lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			// A sweep took the fresh file for a leftover: another name.
			f.Close()
			continue
		}
		// A sweep may have removed the file between its creation and
		// the lock: then the lock guards nothing, so take another name.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(base + stageLock)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close()
			continue
		}
		return &StagedImport{s: s, base: base, lock: f}, nil
	}
}

// Install makes the staged repository project id's, by renaming it into
// place. An existing repository there must have no branches or tags
// (models.ErrConflict): it is moved aside, and back by Discard. Call it
// last in the transaction that creates or updates the project's row, and
// Commit once the transaction committed (or Discard when it did not).
func (st *StagedImport) Install(ctx context.Context, projectID int64) error {
	if st.installed != 0 || st.committed || st.Result == nil {
		return fmt.Errorf("install a staged import twice: %w", models.ErrInvalidInput)
	}
	if projectID <= 0 {
		return fmt.Errorf("install a staged import: project id %d: %w", projectID, models.ErrInvalidInput)
	}
	s := st.s
	target := s.Path(projectID)
	if s.Exists(projectID) {
		if err := refuseRefs(ctx, s.git, target); err != nil {
			return err
		}
		s.dropIdle(projectID)
		if err := os.Rename(target, st.base+stageOld); err != nil {
			return fmt.Errorf("install the import into project %d: %w", projectID, err)
		}
		st.replaced = true
	} else if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("install the import into project %d: %w", projectID, err)
	}
	if err := os.Rename(st.repo(), target); err != nil {
		if st.replaced {
			if os.Rename(st.base+stageOld, target) == nil {
				st.replaced = false
			}
		}
		return fmt.Errorf("install the import into project %d: %w", projectID, err)
	}
	st.installed = projectID
	return nil
}

// Commit keeps the installed repository for good and removes what is left
// of the staging.
func (st *StagedImport) Commit() error {
	if st.installed == 0 {
		return fmt.Errorf("commit a staged import that is not installed: %w", models.ErrInvalidInput)
	}
	st.committed = true
	return st.Discard()
}

// Discard undoes an import that was not committed: an installed
// repository is removed (and the empty one it replaced put back), a
// staged one deleted. After Commit it only tidies up. Calling it again is
// harmless.
func (st *StagedImport) Discard() error {
	if st.lock == nil {
		return nil
	}
	var errs []error
	if st.installed != 0 && !st.committed {
		target := st.s.Path(st.installed)
		st.s.dropIdle(st.installed)
		if err := os.RemoveAll(target); err != nil {
			errs = append(errs, err)
		} else if st.replaced {
			if err := os.Rename(st.base+stageOld, target); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) == 0 { // else the replaced repository is kept
		for _, suffix := range []string{stageRepo, stageOld} {
			if err := os.RemoveAll(st.base + suffix); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) == 0 {
		// The lock goes last: while the directories are there, it is held.
		if err := os.Remove(st.base + stageLock); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	st.lock.Close()
	st.lock = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove a staged import: %w", err)
	}
	return nil
}

// SweepStaging removes what imports whose process died (killed, or the
// machine stopped) left in the staging directory: every staged name whose
// lock no live process holds. It returns how many it removed. OpenStorage
// and StageImport call it; a failure to remove is retried by the next.
func (s *Storage) SweepStaging() int {
	tmp := filepath.Join(s.root, StagingDir)
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	bases := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, stagePrefix) {
			continue
		}
		for _, suffix := range []string{stageRepo, stageOld, stageLock} {
			if b, ok := strings.CutSuffix(name, suffix); ok {
				bases[filepath.Join(tmp, b)] = true
			}
		}
	}
	n := 0
	for base := range bases {
		if sweepStage(base) {
			n++
		}
	}
	return n
}

// sweepStage removes the staged name base when no live process holds its
// lock, and reports whether it did.
func sweepStage(base string) bool {
	f, err := os.OpenFile(base+stageLock, os.O_RDWR, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Its lock is gone (removed last by Discard, or a failed
		// sweep): nothing holds it.
	case err != nil:
		return false
	default:
		defer f.Close()
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return false // a live import's
		}
	}
	for _, suffix := range []string{stageRepo, stageOld} {
		if os.RemoveAll(base+suffix) != nil {
			return false
		}
	}
	_ = os.Remove(base + stageLock)
	return true
}

// RefuseRefs is models.ErrConflict when project id's repository has a
// branch or a tag (an import goes into an empty one only); a missing
// repository is empty.
func (s *Storage) RefuseRefs(ctx context.Context, projectID int64) error {
	if !s.Exists(projectID) {
		return nil
	}
	return refuseRefs(ctx, s.git, s.Path(projectID))
}
