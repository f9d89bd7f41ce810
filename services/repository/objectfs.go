package repository

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// largeObjectThreshold is the size above which a packed, undeltified blob
// is streamed from the pack instead of being inflated into memory.
const largeObjectThreshold = 1 << 20

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
	l.refs = refStore{dir: dir}
	l.objects = objectIO{st: st, repo: repo}
	l.ancestry = ancestry{dir: dir, repo: repo}
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
