package repository

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ref updates follow git's own protocol (refs.c, lockfile.c), so that glmcp
// and a concurrent `git push` to the same repository exclude each other:
//
//  1. create <ref>.lock with O_EXCL (someone else holding it: conflict);
//  2. read the ref's current value (loose file, else packed-refs) and
//     compare it with the expected old value (different: conflict);
//  3. write the new value into the lock file, fsync, and rename it over the
//     ref; a reader sees the old or the new value, never a partial one.
//
// go-git's own CheckAndSetReference locks the ref file itself with flock and
// rewrites it in place: a reader can see it empty, and git's rename-based
// writers do not see that lock. Hence this file.

// refStore reads and updates a repository's refs on disk (loose files,
// then packed-refs) and tells the storage's ref watcher what moved. pool
// is nil for a Local opened outside a Storage.
type refStore struct {
	dir       string
	pool      *Storage
	projectID int64
}

// errRefLocked is returned when another writer holds a ref's lock file.
var errRefLocked = errors.New("is being updated by another writer")

// updateRef moves ref name from oldHash to newHash as one compare-and-swap.
// oldHash zero means the ref must not exist (create); newHash zero deletes
// it. A ref that is not at oldHash, or whose lock is held, is
// models.ErrConflict and nothing changes.
func (rs refStore) updateRef(name plumbing.ReferenceName, oldHash, newHash plumbing.Hash) (err error) {
	defer func() {
		if err == nil {
			rs.moved(name)
		}
	}()
	refPath := filepath.Join(rs.dir, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(refPath), 0o755); err != nil {
		return fmt.Errorf("update %s: a ref with a prefix of this name exists: %w", name.Short(), models.ErrConflict)
	}
	lock, err := lockFile(rs.dir, refPath+".lock")
	if errors.Is(err, errLocked) {
		return fmt.Errorf("update %s: the ref %w: %w", name.Short(), errRefLocked, models.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", name.Short(), storageError(err))
	}
	defer lock.release()

	cur, err := rs.readRef(name)
	if err != nil {
		return err
	}
	if cur != oldHash {
		switch {
		case oldHash.IsZero():
			return fmt.Errorf("%s already exists: %w", name.Short(), models.ErrConflict)
		case cur.IsZero():
			return fmt.Errorf("%s does not exist any more: %w", name.Short(), models.ErrConflict)
		default:
			return fmt.Errorf("%s moved to %s while this change was prepared from %s: %w",
				name.Short(), cur.String()[:8], oldHash.String()[:8], models.ErrConflict)
		}
	}
	if newHash.IsZero() {
		return rs.deleteRef(name, refPath)
	}
	if err := lock.write([]byte(newHash.String() + "\n")); err != nil {
		return fmt.Errorf("update %s: write lock: %w", name.Short(), storageError(err))
	}
	if err := lock.commit(refPath); err != nil {
		return fmt.Errorf("update %s: %w", name.Short(), storageError(err))
	}
	return nil
}

// refLockTimeout is how long a ref update waits for a lock another writer
// holds, as git's core.filesRefLockTimeout does (100 ms by default there):
// housekeeping's pack-refs holds each loose ref's lock for an instant, and
// a concurrent writer of the same ref moves it, which the compare that
// follows reports as the conflict it is. A lock whose writer is dead is
// removed at once instead (see lockFile).
const refLockTimeout = time.Second

// readRef returns the hash ref name holds on disk now (loose ref first,
// then packed-refs), or the zero hash when it does not exist.
func (rs refStore) readRef(name plumbing.ReferenceName) (plumbing.Hash, error) {
	b, missing, err := readLooseRef(filepath.Join(rs.dir, filepath.FromSlash(name.String())))
	switch {
	case err != nil:
		return plumbing.ZeroHash, fmt.Errorf("read ref %s: %w", name.Short(), err)
	case !missing:
		s := strings.TrimSpace(string(b))
		if !IsFullHash(s) {
			return plumbing.ZeroHash, fmt.Errorf("ref %s holds %.80q, not an object id", name.Short(), s)
		}
		return plumbing.NewHash(s), nil
	}
	f, err := os.Open(filepath.Join(rs.dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := " " + name.String()
	for sc.Scan() {
		line := sc.Text()
		if len(line) > 41 && strings.HasSuffix(line, want) && len(line) == 40+len(want) {
			return plumbing.NewHash(line[:40]), nil
		}
	}
	return plumbing.ZeroHash, sc.Err()
}

// deleteRef removes ref name (whose own lock the caller holds) from
// packed-refs and then its loose file at refPath, holding packed-refs.lock
// across both, as git's ref transactions do. The lock is what keeps a
// concurrent `git pack-refs` (housekeeping) from reading the loose ref
// after packed-refs was rewritten without it and before the loose file
// went, and packing the deleted ref back. It is taken even when there is
// no packed-refs yet: pack-refs may be writing the first one. packed-refs
// first: if that fails the ref is untouched, never back at an older
// packed value.
func (rs refStore) deleteRef(name plumbing.ReferenceName, refPath string) error {
	path := filepath.Join(rs.dir, "packed-refs")
	lock, err := lockFile(rs.dir, path+".lock")
	if errors.Is(err, errLocked) {
		return fmt.Errorf("delete %s: packed-refs %w: %w", name.Short(), errRefLocked, models.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", name.Short(), storageError(err))
	}
	defer lock.release()
	if err := rs.rewritePackedWithout(name, path); err != nil {
		return err
	}
	if err := os.Remove(refPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", name.Short(), err)
	}
	return nil
}

// rewritePackedWithout writes packed-refs at path without name, when it
// has name (the caller holds packed-refs.lock); a repository without
// packed-refs has nothing to rewrite.
func (rs refStore) rewritePackedWithout(name plumbing.ReferenceName, path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out bytes.Buffer
	found := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if len(line) > 41 && string(bytes.TrimRight(line[41:], "\n")) == name.String() {
			found = true
			if i+1 < len(lines) && bytes.HasPrefix(lines[i+1], []byte("^")) {
				i++ // its peeled value
			}
			continue
		}
		out.Write(line)
	}
	if !found {
		return nil
	}
	if err := replaceFile(rs.dir, path, out.Bytes()); err != nil {
		return fmt.Errorf("delete %s: write packed-refs: %w", name.Short(), storageError(err))
	}
	return nil
}

// replaceFile writes data to a new private file in dir, syncs it and
// renames it over target, so a reader sees the old or the new content. A
// lock held on target (packed-refs.lock) stays held: it is not the file
// renamed, as git keeps packed-refs.lock while it deletes loose refs. What
// a crash leaves is a private link file the stale-lock sweep removes.
func replaceFile(dir, target string, data []byte) error {
	p, f, err := newLockLink(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(p, target)
	}
	if err != nil {
		os.Remove(p)
	}
	return err
}

// moved tells the storage's ref watcher (see [Storage.OnRefUpdate]) that
// ref name of the repository's project moved.
func (rs refStore) moved(name plumbing.ReferenceName) {
	if rs.pool == nil || rs.projectID <= 0 {
		return
	}
	rs.pool.hk.noteWrite(rs.projectID)
	if fn := rs.pool.refWatcher(); fn != nil {
		fn(rs.projectID, name.Short())
	}
}

// setHead points HEAD at branch, under HEAD.lock as git does: HEAD is
// replaced whole or not at all (a full disk never leaves it empty).
func (rs refStore) setHead(branch string) error {
	head := filepath.Join(rs.dir, "HEAD")
	lock, err := lockFile(rs.dir, head+".lock")
	if errors.Is(err, errLocked) {
		return fmt.Errorf("set HEAD: HEAD %w: %w", errRefLocked, models.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("set HEAD: %w", storageError(err))
	}
	defer lock.release()
	if err := lock.write([]byte("ref: " + plumbing.NewBranchReferenceName(branch).String() + "\n")); err != nil {
		return fmt.Errorf("set HEAD: %w", storageError(err))
	}
	if err := lock.commit(head); err != nil {
		return fmt.Errorf("set HEAD: %w", storageError(err))
	}
	return nil
}

// branchHead returns the commit branch points at, or nil when it does
// not exist (read from disk, not through a cache).
func (rs refStore) branchHead(name string) (plumbing.Hash, error) {
	return rs.readRef(plumbing.NewBranchReferenceName(name))
}
