package repository

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// QuarantineDir is the directory of the storage root where a directory
// found in @hashed that is no repository, and belongs to no project, is
// moved at start (see Recover): out of the way of a new project with its
// id, kept for an operator to look at or delete.
const QuarantineDir = "+quarantine"

// Age bounds past which a temporary object file no writer is still
// writing.
const (
	// staleTempObjectAge: a loose object being written (go-git's
	// objects/pack/tmp_obj_*, git's objects/xx/tmp_obj_*), one object.
	staleTempObjectAge = time.Hour
	// staleTempPackAge: a pack being received (tmp_pack_*, tmp_idx_*, …)
	// lives as long as the fetch that writes it, bounded by
	// DefaultImportTimeout.
	staleTempPackAge = DefaultImportTimeout
)

// RecoverReport says what Recover found and did.
type RecoverReport struct {
	Repositories int // repositories looked at
	Locks        int // stale lock files removed
	TempFiles    int // temporary object files of dead writers removed
	Quarantined  int // directories moved to QuarantineDir
	Invalid      int // invalid repositories of existing projects, left in place
}

// Recover tidies the storage after a crash: in every repository, lock
// files whose writer is dead (glmcp's own) or that are older than any
// writer holds them, and temporary object files of dead writers, are
// removed; a directory in @hashed that is no valid repository is moved to
// QuarantineDir when no project in projectIDs owns it, and only logged
// when one does. Each finding is logged on logger (nil: not logged). It
// stops early when ctx ends.
func (s *Storage) Recover(ctx context.Context, projectIDs []int64, logger *slog.Logger) (RecoverReport, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	owned := make(map[string]int64, len(projectIDs))
	for _, id := range projectIDs {
		owned[filepath.Base(HashedPath(id))] = id
	}
	var rep RecoverReport
	s.SweepStaging()
	// Readiness probes a process died in the middle of (see CheckWritable).
	probes, _ := filepath.Glob(filepath.Join(s.root, StagingDir, writeCheckPattern))
	for _, p := range probes {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
			_ = os.Remove(p)
		}
	}
	hashed := filepath.Join(s.root, "@hashed")
	l1, err := os.ReadDir(hashed)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("list repositories: %w", err)
	}
	for _, a := range l1 {
		l2, _ := os.ReadDir(filepath.Join(hashed, a.Name()))
		for _, b := range l2 {
			l3, _ := os.ReadDir(filepath.Join(hashed, a.Name(), b.Name()))
			for _, c := range l3 {
				if err := ctx.Err(); err != nil {
					return rep, err
				}
				if !c.IsDir() || !strings.HasSuffix(c.Name(), ".git") {
					continue
				}
				dir := filepath.Join(hashed, a.Name(), b.Name(), c.Name())
				rel := "@hashed/" + a.Name() + "/" + b.Name() + "/" + c.Name()
				if why := invalidRepository(dir); why != "" {
					if id, ok := owned[c.Name()]; ok {
						rep.Invalid++
						logger.Error("repository of a project is not a valid git repository; left in place", "project_id", id, "path", rel, "reason", why)
						continue
					}
					to, err := s.quarantine(dir)
					if err != nil {
						logger.Error("could not quarantine an invalid repository directory", "path", rel, "reason", why, "error", err)
						continue
					}
					rep.Quarantined++
					logger.Warn("moved an invalid repository directory of no project to quarantine", "path", rel, "reason", why, "to", to)
					continue
				}
				rep.Repositories++
				locks, temps := cleanStale(dir)
				rep.Locks += locks
				rep.TempFiles += temps
				if locks+temps > 0 {
					logger.Info("removed what dead writers left in a repository", "path", rel, "stale_locks", locks, "temporary_files", temps)
				}
			}
		}
	}
	return rep, nil
}

// RecoverInBackground runs Recover in the background (a storage of many
// repositories takes a while to walk; a write meanwhile removes the stale
// locks it meets itself, see lockFile) and logs what it did in one line.
// Close stops it.
func (s *Storage) RecoverInBackground(projectIDs []int64, logger *slog.Logger) {
	h := s.hk
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		start := time.Now()
		rep, err := s.Recover(h.ctx, projectIDs, logger)
		if logger == nil {
			return
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			logger.Error("repository recovery failed", "error", err)
			return
		}
		logger.Info("repository recovery done", "repositories", rep.Repositories, "stale_locks", rep.Locks,
			"temporary_files", rep.TempFiles, "quarantined", rep.Quarantined, "invalid", rep.Invalid,
			"duration", time.Since(start).Round(time.Millisecond).String())
	}()
}

// invalidRepository returns why dir is no bare git repository glmcp can
// serve ("" when it is one).
func invalidRepository(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	switch {
	case err != nil:
		return "no readable HEAD"
	case len(b) == 0:
		return "HEAD is empty"
	}
	head := strings.TrimSpace(string(b))
	if !strings.HasPrefix(head, "ref: refs/") && !IsFullHash(head) {
		return "HEAD names neither a ref nor an object"
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return "no " + sub + " directory"
		}
	}
	return ""
}

// quarantine moves dir (in @hashed) to QuarantineDir and returns its new
// path relative to the storage root.
func (s *Storage) quarantine(dir string) (string, error) {
	q := filepath.Join(s.root, QuarantineDir)
	if err := os.MkdirAll(q, 0o755); err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(dir), ".git") + "-" + time.Now().UTC().Format("20060102T150405.000000000") + ".git"
	if err := os.Rename(dir, filepath.Join(q, name)); err != nil {
		return "", err
	}
	return QuarantineDir + "/" + name, nil
}

// cleanStale removes the stale lock files and the temporary object files
// of dead writers in the repository dir, and returns how many of each.
func cleanStale(dir string) (locks, temps int) {
	remove := func(p string) bool {
		rel, _ := filepath.Rel(dir, p)
		ok, _ := removeStaleLock(p, lockStaleAge(filepath.ToSlash(rel)))
		return ok
	}
	for _, rel := range []string{"HEAD.lock", "config.lock", "packed-refs.lock", "index.lock", "shallow.lock",
		"objects/info/commit-graph.lock", "objects/info/commit-graphs/commit-graph-chain.lock"} {
		if remove(filepath.Join(dir, filepath.FromSlash(rel))) {
			locks++
		}
	}
	_ = filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") && remove(p) {
			locks++
		}
		return nil
	})
	// The private links last: they tell a dead glmcp writer's lock.
	removeStaleLockLinks(dir)

	objects := filepath.Join(dir, "objects")
	entries, _ := os.ReadDir(objects)
	for _, e := range entries {
		switch {
		case e.Name() == "pack" || (e.IsDir() && len(e.Name()) == 2 && isHex(e.Name())):
			sub, _ := os.ReadDir(filepath.Join(objects, e.Name()))
			for _, f := range sub {
				p := filepath.Join(objects, e.Name(), f.Name())
				if !staleTemp(f) && e.Name() == "pack" && strings.HasPrefix(f.Name(), "tmp_obj_") {
					// glmcp's own (git writes its loose objects in
					// objects/xx): flocked while written (see objectFS).
					if removeUnlocked(p) {
						temps++
					}
					continue
				}
				if staleTemp(f) && os.Remove(p) == nil {
					temps++
				}
			}
		case staleTemp(e):
			if os.RemoveAll(filepath.Join(objects, e.Name())) == nil {
				temps++
			}
		}
	}
	return locks, temps
}

// staleTemp reports whether e is a temporary object file (or git's
// incoming-objects directory) old enough that its writer is gone.
func staleTemp(e fs.DirEntry) bool {
	name := e.Name()
	var maxAge time.Duration
	switch {
	case strings.HasPrefix(name, "tmp_obj_"):
		maxAge = staleTempObjectAge
	case strings.HasPrefix(name, "tmp_"), strings.HasPrefix(name, "incoming-"):
		maxAge = staleTempPackAge
	default:
		return false
	}
	fi, err := e.Info()
	return err == nil && time.Since(fi.ModTime()) > maxAge
}

// removeUnlocked removes the file p when no live process holds flock(2)
// on it, and reports whether it did. The file is removed while the flock
// taken to test it is held: a writer that created it and waits for its
// own flock meanwhile gets it only once the file is gone, sees that, and
// takes another (objectFS.TempFile). Testing, releasing and then
// removing let such a writer lock the file in between and write into a
// file removed under it (the rename that ends its write failed with "no
// such file or directory").
func removeUnlocked(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	return os.Remove(p) == nil
}
