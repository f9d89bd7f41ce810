package repository

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// Lock files and crash recovery.
//
// git excludes writers of a file with <file>.lock, created with O_EXCL and
// renamed over the file (or removed) when done. A writer killed in
// between leaves the lock behind and git never removes it by itself:
// every later writer of that file fails for good. glmcp tells such a
// leftover from a live writer's lock as follows.
//
//   - A lock glmcp takes is a hard link of a file of its own,
//     <repository>/glmcp-lock-<random>, which the writer holds flock(2) on
//     from before the link until after the rename: the kernel drops that
//     lock when the process dies, however it dies. So a lock file with
//     more than one link whose flock can be taken was glmcp's, and its
//     writer is dead: it is stale at once, and the restart after a crash
//     serves every branch immediately.
//   - Any other lock (git's own, glmcp's git commands' or an operator's)
//     names no process. It is stale once it is older than the longest any
//     writer holds it (lockStaleAge), the rule Gitaly's housekeeping
//     applies.
//
// A stale lock is removed by whoever finds it: the writer that wants it
// (lockFile), housekeeping, and the sweep at start (Storage.Recover).

// lockLinkPrefix names glmcp's own lock files in a repository's directory.
const lockLinkPrefix = "glmcp-lock-"

// Age bounds past which a lock file no live glmcp process holds is stale.
const (
	// gitLockStaleAge: git holds a ref, HEAD or config lock for one ref
	// transaction or config write; every git command glmcp starts without
	// its own bound is killed after gitcmd.DefaultTimeout (10 minutes).
	gitLockStaleAge = 10 * time.Minute
	// slowLockStaleAge: packed-refs.lock (pack-refs rewrites the whole
	// file) and the commit-graph chain's lock (held while a graph is
	// written) are held by housekeeping, bounded by housekeepingTimeout.
	slowLockStaleAge = housekeepingTimeout
)

// lockStaleAge returns how old the lock file rel (relative to the
// repository, slash-separated) must be for no writer to hold it any more.
func lockStaleAge(rel string) time.Duration {
	switch rel {
	case "packed-refs.lock", "objects/info/commit-graphs/commit-graph-chain.lock", "objects/info/commit-graph.lock":
		return slowLockStaleAge
	}
	return gitLockStaleAge
}

// errLocked: the lock file exists and is not stale.
var errLocked = errors.New("lock file exists")

// fileLock is a lock glmcp holds: the lock file and its private link.
type fileLock struct {
	f    *os.File // the private link, flocked
	path string   // <file>.lock
	priv string   // <repository>/glmcp-lock-<random>
	done bool
}

// lockFile takes path (a lock file of the repository in dir), waiting up
// to refLockTimeout while another writer holds it. A lock left by a dead
// writer is removed first (see above). It is errLocked when still held at
// the deadline; a directory missing meanwhile (pack-refs removes the ones
// it empties) is made again, as git does.
func lockFile(dir, path string) (*fileLock, error) {
	priv, f, err := newLockLink(dir)
	if err != nil {
		return nil, err
	}
	l := &fileLock{f: f, priv: priv} // path is set once it is ours
	deadline := time.Now().Add(refLockTimeout)
	wait := time.Millisecond
	for {
		err := os.Link(priv, path)
		if err == nil {
			l.path = path
			return l, nil
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) && time.Now().Before(deadline):
			if merr := os.MkdirAll(filepath.Dir(path), 0o755); merr != nil {
				l.release()
				return nil, err
			}
			continue
		case errors.Is(err, fs.ErrExist):
			rel, _ := filepath.Rel(dir, path)
			if removed, _ := removeStaleLock(path, lockStaleAge(filepath.ToSlash(rel))); removed {
				continue
			}
			if time.Now().After(deadline) {
				l.release()
				return nil, errLocked
			}
			time.Sleep(wait)
			wait = min(2*wait, 50*time.Millisecond)
		default:
			l.release()
			return nil, err
		}
	}
}

// newLockLink creates a private file in dir, flocked, to be linked as a
// lock file.
func newLockLink(dir string) (string, *os.File, error) {
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		p := filepath.Join(dir, lockLinkPrefix+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		for errors.Is(err, syscall.EINTR) {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		}
		if err != nil {
			f.Close()
			os.Remove(p)
			return "", nil, err
		}
		// A sweep may have taken the fresh file for a dead writer's and
		// removed it before the flock: then take another name.
		fi, err1 := f.Stat()
		pi, err2 := os.Lstat(p)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close()
			continue
		}
		return p, f, nil
	}
}

// write replaces the lock file's content with data and syncs it.
func (l *fileLock) write(data []byte) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt(data, 0); err != nil {
		return err
	}
	return l.f.Sync()
}

// commit renames the lock file over target and releases the lock.
func (l *fileLock) commit(target string) error {
	if err := os.Rename(l.path, target); err != nil {
		return err
	}
	l.done = true
	l.release()
	return nil
}

// release removes the lock file (unless committed) and the private link,
// then drops the flock: while the files are there, the flock is held, so
// no one takes them for a dead writer's. Calling it again is harmless.
func (l *fileLock) release() {
	if l.f == nil {
		return
	}
	if !l.done && l.path != "" {
		os.Remove(l.path)
	}
	os.Remove(l.priv)
	l.f.Close()
	l.f = nil
}

// removeStaleLock removes the lock file path when no live writer holds
// it: glmcp's own with a dead writer, or any older than maxAge. It
// reports whether it removed it.
func removeStaleLock(path string, maxAge time.Duration) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, nil // gone meanwhile, or not ours to judge
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false, nil // a live glmcp writer's
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	ownDead := false
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		ownDead = true
	}
	if !ownDead && time.Since(fi.ModTime()) < maxAge {
		return false, nil
	}
	// Still the file judged (a live git may have renamed it and taken
	// the lock again meanwhile); a glmcp writer cannot, it needs our
	// flock first.
	if pi, err := os.Lstat(path); err != nil || !os.SameFile(fi, pi) {
		return false, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("remove stale lock: %w", err)
	}
	return true, nil
}

// removeStaleLockLinks removes glmcp's private lock links in dir whose
// writer is dead (their flock can be taken). Call it after the stale lock
// files themselves: a dead writer's lock file is recognised by its link.
func removeStaleLockLinks(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), lockLinkPrefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			if os.Remove(p) == nil {
				n++
			}
		}
		f.Close()
	}
	return n
}

// storageError marks err as models.ErrInsufficientStorage when a disk was
// full, over quota or read-only (models.IsStorageFull), also when a
// library kept only the text of the system's error.
func storageError(err error) error {
	if err == nil || errors.Is(err, models.ErrInsufficientStorage) {
		return err
	}
	full := models.IsStorageFull(err)
	if !full {
		msg := strings.ToLower(err.Error())
		for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS} {
			full = full || strings.Contains(msg, errno.Error())
		}
	}
	if !full {
		return err
	}
	return fmt.Errorf("%w: %w", models.ErrInsufficientStorage, err)
}
