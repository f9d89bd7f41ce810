package repository

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/catfile"
)

// objectStore is the object storage go-git reads a Local through. go-git
// reads the object store as it finds it: it lists the packs once, when it
// first reads a packed object, and opens a pack (and a loose object) by
// name when it reads it. A repack running beside it (glmcp's
// housekeeping, a user's git gc) writes a new pack, then deletes the
// loose objects and packs it replaced, and a directory listing can catch
// a pack whose index is not yet renamed into place. So go-git's answers
// are used only where they are right by construction, and git itself
// (catfile, cat-file --batch-command, which sees a consistent store)
// answers the rest:
//
//   - an object go-git returns in memory is the object: objects are named
//     by their content, and go-git read it whole from a file it had
//     open, which stays readable after a repack deletes it;
//   - an object go-git would read later, by opening its pack or loose
//     file again by name (FSObject, go-git's lazy objects above 16 KiB
//     packed or largeObjectThreshold loose), is read from that file when
//     it opens (an open file stays readable, and a name always holds the
//     same content), and streamed from git when the name is gone;
//   - anything else go-git answers (not found, a missing pack or index)
//     is asked of git, whose answer is final: a missing object is one git
//     does not have either.
//
// Writes stay go-git's (loose objects, each written to a temporary file
// and renamed).
type objectStore struct {
	*filesystem.Storage
	l *Local
}

// ctx is the context of the request the Local serves.
func (s objectStore) ctx() context.Context {
	if s.l.ctx != nil {
		return s.l.ctx
	}
	return context.Background()
}

func (s objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if s.l.cat == nil {
		return o, err
	}
	if err == nil {
		if _, whole := o.(*plumbing.MemoryObject); whole {
			return o, nil
		}
		return &reopened{EncodedObject: o, git: &gitObject{s: s, h: h, t: o.Type(), size: o.Size()}}, nil
	}
	return s.fromGit(t, h)
}

// reopened is an object go-git hands out unread: its Reader opens the
// pack (or loose file) again by name. Once open, the file is read whole
// whatever a repack does to its name; when it is gone, git reads the
// object.
type reopened struct {
	plumbing.EncodedObject
	git *gitObject
}

func (o *reopened) Reader() (io.ReadCloser, error) {
	r, err := o.EncodedObject.Reader()
	if err == nil {
		return r, nil
	}
	return o.git.Reader()
}

// fromGit reads object h through git.
func (s objectStore) fromGit(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	info, err := s.l.cat.Info(s.ctx(), s.l.dir, h.String())
	if err != nil {
		return nil, objectError(err)
	}
	typ, err := plumbing.ParseObjectType(info.Type)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	if info.Size > largeObjectThreshold {
		return &gitObject{s: s, h: h, t: typ, size: info.Size}, nil
	}
	_, b, err := s.l.cat.Read(s.ctx(), s.l.dir, h.String(), largeObjectThreshold)
	if err != nil {
		return nil, objectError(err)
	}
	m := &plumbing.MemoryObject{}
	m.SetType(typ)
	if _, err := m.Write(b); err != nil {
		return nil, err
	}
	return m, nil
}

// objectError maps catfile's answers to go-git's and the request's.
func objectError(err error) error {
	switch {
	case errors.Is(err, catfile.ErrMissing), errors.Is(err, catfile.ErrAmbiguous):
		return plumbing.ErrObjectNotFound
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("read object through git: %w", err)
}

func (s objectStore) HasEncodedObject(h plumbing.Hash) error {
	err := s.Storage.HasEncodedObject(h)
	if err == nil || s.l.cat == nil {
		return err
	}
	if _, err := s.l.cat.Info(s.ctx(), s.l.dir, h.String()); err != nil {
		return objectError(err)
	}
	return nil
}

func (s objectStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	n, err := s.Storage.EncodedObjectSize(h)
	if err == nil || s.l.cat == nil {
		return n, err
	}
	info, err := s.l.cat.Info(s.ctx(), s.l.dir, h.String())
	if err != nil {
		return 0, objectError(err)
	}
	return info.Size, nil
}

// HashesWithPrefix expands an abbreviated object id (go-git's
// ResolveRevision asks it for revision syntax such as "abc1234~1"). git
// cat-file answers first, from a binary search of the pack indexes, where
// go-git reads every entry of every index (~13 ms on git's history); an
// ambiguous prefix, or a name git takes for a ref, is left to go-git's
// listing. go-git lists only what its pack list and the loose directories
// hold; when that finds nothing, git resolves the prefix.
func (s objectStore) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	if s.l.cat != nil && len(prefix) >= 2 {
		name := fmt.Sprintf("%x", prefix)
		info, err := s.l.cat.Info(s.ctx(), s.l.dir, name)
		if err == nil && IsFullHash(info.OID) && strings.HasPrefix(strings.ToLower(info.OID), name) {
			return []plumbing.Hash{plumbing.NewHash(info.OID)}, nil
		}
	}
	hs, err := s.Storage.HashesWithPrefix(prefix)
	if (err == nil && len(hs) > 0) || s.l.cat == nil {
		return hs, err
	}
	name := fmt.Sprintf("%x", prefix)
	if len(name) < 4 {
		return nil, nil
	}
	info, cerr := s.l.cat.Info(s.ctx(), s.l.dir, name)
	if cerr != nil || !IsFullHash(info.OID) {
		return hs, err
	}
	return []plumbing.Hash{plumbing.NewHash(info.OID)}, nil
}

// gitObject is an object too large to hold in memory, streamed from git
// each time it is read.
type gitObject struct {
	s    objectStore
	h    plumbing.Hash
	t    plumbing.ObjectType
	size int64
}

func (o *gitObject) Hash() plumbing.Hash         { return o.h }
func (o *gitObject) Type() plumbing.ObjectType   { return o.t }
func (o *gitObject) SetType(plumbing.ObjectType) {}
func (o *gitObject) Size() int64                 { return o.size }
func (o *gitObject) SetSize(int64)               {}

func (o *gitObject) Reader() (io.ReadCloser, error) {
	_, r, err := o.s.l.cat.Open(o.s.ctx(), o.s.l.dir, o.h.String())
	if err != nil {
		return nil, objectError(err)
	}
	return r, nil
}

func (o *gitObject) Writer() (io.WriteCloser, error) {
	return nil, fmt.Errorf("object %s is read-only: %w", o.h, models.ErrInvalidInput)
}
