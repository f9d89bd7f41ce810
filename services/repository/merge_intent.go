package repository

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A merge spans git and the store: the target branch moves in git, then
// the merge request is marked merged in the store. A crash in between
// leaves git merged and the store open. So before the branch moves, the
// merge is recorded next to the repository (a merge intent, what
// accept_merge_request needs to finish it), and removed once the store
// has it; whoever meets an intent later finishes the merge in the store
// when the target holds it, or drops the intent when it does not. The
// store is never marked merged before git is.

// mergeIntentDir is the directory of a repository holding merge intents,
// one file per merge request iid. git ignores it.
const mergeIntentDir = "glmcp-merging"

func (s *Storage) mergeIntentPath(projectID, iid int64) string {
	return filepath.Join(s.Path(projectID), mergeIntentDir, strconv.FormatInt(iid, 10))
}

// WriteMergeIntent records data as the intent of merging merge request iid
// of project projectID, synced to disk, replacing any earlier one.
func (s *Storage) WriteMergeIntent(projectID, iid int64, data []byte) error {
	p := s.mergeIntentPath(projectID, iid)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("record the merge: %w", storageError(err))
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return fmt.Errorf("record the merge: %w", storageError(err))
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("record the merge: %w", storageError(err))
	}
	return nil
}

// MergeIntent returns the merge intent of merge request iid of project
// projectID, or nil when there is none.
func (s *Storage) MergeIntent(projectID, iid int64) ([]byte, error) {
	b, err := os.ReadFile(s.mergeIntentPath(projectID, iid))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read a merge intent: %w", err)
	}
	return b, nil
}

// RemoveMergeIntent removes the merge intent of merge request iid of
// project projectID (none is not an error).
func (s *Storage) RemoveMergeIntent(projectID, iid int64) error {
	if err := os.Remove(s.mergeIntentPath(projectID, iid)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove a merge intent: %w", err)
	}
	return nil
}

// MergeIntents returns the iids of project projectID's merge requests
// with a merge intent.
func (s *Storage) MergeIntents(projectID int64) []int64 {
	entries, _ := os.ReadDir(filepath.Join(s.Path(projectID), mergeIntentDir))
	var out []int64
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if n, err := strconv.ParseInt(e.Name(), 10, 64); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}
