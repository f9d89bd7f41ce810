package repository

import (
	"errors"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// repackSafe is the object storage go-git reads a Local through. go-git
// lists a repository's packs once, when it first reads a packed object;
// a repack that runs meanwhile (glmcp's housekeeping in another
// goroutine or process, or a user's git gc) writes a new pack and deletes
// the loose objects and old packs it replaced. A read that then finds
// nothing, or finds its pack deleted before it was opened, lists the
// packs again and tries once more: the object is in the new pack. A
// request that never meets a repack pays nothing, and a read of an
// object that is really missing lists the pack directory (no index is
// read again unless the packs changed).
type repackSafe struct {
	*filesystem.Storage
	dir   string
	packs *string // the pack set the storage indexed (packSet)
}

// reindexed lists the packs again when they changed since they were
// indexed, and reports whether they had.
func (s repackSafe) reindexed() bool {
	now, err := packSet(s.dir)
	if err != nil || now == *s.packs {
		return false
	}
	*s.packs = now
	s.Reindex()
	return true
}

// movedByRepack reports whether err may be a read that missed a repack:
// the object is gone from where the pack list said it was.
func movedByRepack(err error) bool {
	return errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, fs.ErrNotExist)
}

func (s repackSafe) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if err != nil && movedByRepack(err) && s.reindexed() {
		o, err = s.Storage.EncodedObject(t, h)
	}
	return o, err
}

func (s repackSafe) HasEncodedObject(h plumbing.Hash) error {
	err := s.Storage.HasEncodedObject(h)
	if err != nil && movedByRepack(err) && s.reindexed() {
		err = s.Storage.HasEncodedObject(h)
	}
	return err
}

func (s repackSafe) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	n, err := s.Storage.EncodedObjectSize(h)
	if err != nil && movedByRepack(err) && s.reindexed() {
		n, err = s.Storage.EncodedObjectSize(h)
	}
	return n, err
}
