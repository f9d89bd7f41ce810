package repository

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"gitlab.com/glmcp/glmcp/models"
)

// treeEditor edits a tree in memory, loading only the subtrees on the
// paths it touches, and writes back only the trees that changed: a commit
// of one file in a 10,000-file repository reads and writes a handful of
// trees.
type treeEditor struct {
	ob   objectIO
	root *treeNode
}

type treeNode struct {
	entries  map[string]object.TreeEntry
	children map[string]*treeNode // subtrees loaded for editing
}

func (ob objectIO) newTreeEditor(tree *object.Tree) *treeEditor {
	return &treeEditor{ob: ob, root: nodeOf(tree)}
}

func nodeOf(tree *object.Tree) *treeNode {
	n := &treeNode{entries: map[string]object.TreeEntry{}, children: map[string]*treeNode{}}
	if tree != nil {
		for _, e := range tree.Entries {
			n.entries[e.Name] = e
		}
	}
	return n
}

// dir returns the node of directory segs (the directories of path),
// creating missing directories when create is set; nil when it does not
// exist.
func (t *treeEditor) dir(path string, segs []string, create bool) (*treeNode, error) {
	n := t.root
	for i, s := range segs {
		if child, ok := n.children[s]; ok {
			n = child
			continue
		}
		e, ok := n.entries[s]
		switch {
		case !ok && !create:
			return nil, nil
		case !ok:
			child := nodeOf(nil)
			n.children[s] = child
			n.entries[s] = object.TreeEntry{Name: s, Mode: filemode.Dir}
			n = child
		case e.Mode != filemode.Dir:
			return nil, fmt.Errorf("%q is a file, so it cannot hold %q: %w",
				strings.Join(segs[:i+1], "/"), path, models.ErrInvalidInput)
		default:
			sub, err := t.ob.repo.TreeObject(e.Hash)
			if err != nil {
				return nil, fmt.Errorf("tree %s: %w", e.Hash, err)
			}
			child := nodeOf(sub)
			n.children[s] = child
			n = child
		}
	}
	return n, nil
}

func splitPath(p string) ([]string, string) {
	segs := strings.Split(p, "/")
	return segs[:len(segs)-1], segs[len(segs)-1]
}

// get returns the entry at path, if any.
func (t *treeEditor) get(path string) (object.TreeEntry, bool, error) {
	dirs, name := splitPath(path)
	n, err := t.dir(path, dirs, false)
	if err != nil || n == nil {
		return object.TreeEntry{}, false, err
	}
	e, ok := n.entries[name]
	return e, ok, nil
}

// set puts a file entry at path.
func (t *treeEditor) set(path string, mode filemode.FileMode, h plumbing.Hash) error {
	dirs, name := splitPath(path)
	n, err := t.dir(path, dirs, true)
	if err != nil {
		return err
	}
	if e, ok := n.entries[name]; ok && e.Mode == filemode.Dir {
		return fmt.Errorf("%q is a directory: %w", path, models.ErrInvalidInput)
	}
	n.entries[name] = object.TreeEntry{Name: name, Mode: mode, Hash: h}
	return nil
}

// remove deletes the file at path; directories left empty go too.
func (t *treeEditor) remove(path string) {
	dirs, name := splitPath(path)
	nodes := []*treeNode{t.root}
	n := t.root
	for _, s := range dirs {
		n = n.children[s] // get() loaded them
		if n == nil {
			return
		}
		nodes = append(nodes, n)
	}
	delete(n.entries, name)
	for i := len(dirs) - 1; i >= 0; i-- {
		if len(nodes[i+1].entries) > 0 {
			break
		}
		delete(nodes[i].entries, dirs[i])
		delete(nodes[i].children, dirs[i])
	}
}

// write stores every edited tree and returns the root's id.
func (t *treeEditor) write() (plumbing.Hash, error) { return t.writeNode(t.root) }

func (t *treeEditor) writeNode(n *treeNode) (plumbing.Hash, error) {
	for name, child := range n.children {
		h, err := t.writeNode(child)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		n.entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	tree := &object.Tree{Entries: make([]object.TreeEntry, 0, len(n.entries))}
	for _, e := range n.entries {
		tree.Entries = append(tree.Entries, e)
	}
	sort.Slice(tree.Entries, func(i, j int) bool {
		a, b := tree.Entries[i], tree.Entries[j]
		return sortKey(a.Name, a.Mode) < sortKey(b.Name, b.Mode)
	})
	obj := t.ob.st.NewEncodedObject()
	if err := tree.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	h, err := t.ob.st.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
	}
	return h, nil
}

// objectIO reads and writes a repository's objects through go-git: blobs,
// trees and commits, and walks of a tree's files.
type objectIO struct {
	st   *filesystem.Storage
	repo *git.Repository
}

// peel follows tags from h to a commit.
func (ob objectIO) peel(h plumbing.Hash) (*object.Commit, error) {
	for range 10 {
		obj, err := ob.repo.Object(plumbing.AnyObject, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("object %s: %w", h, models.ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", h, err)
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o, nil
		case *object.Tag:
			h = o.Target
		default:
			return nil, fmt.Errorf("object %s is a %s, not a commit: %w", h, obj.Type(), models.ErrNotFound)
		}
	}
	return nil, fmt.Errorf("object %s: tag chain too long: %w", h, models.ErrInvalidInput)
}

// writeBlob stores content and returns its id.
func (ob objectIO) writeBlob(content []byte) (plumbing.Hash, error) {
	obj := ob.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	h, err := ob.st.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	return h, nil
}

// readBlob returns a whole blob, refusing one above max bytes.
func (ob objectIO) readBlob(h plumbing.Hash, max int64) ([]byte, error) {
	b, err := ob.repo.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	if b.Size > max {
		return nil, fmt.Errorf("file of %d bytes is above the %d-byte edit limit: %w", b.Size, max, models.ErrInvalidInput)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, r); err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	return buf.Bytes(), nil
}

// writeCommit stores a commit object and returns its id.
func (ob objectIO) writeCommit(c *object.Commit) (plumbing.Hash, error) {
	obj := ob.st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	h, err := ob.st.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return h, nil
}
