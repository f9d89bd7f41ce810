package repository

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxMergeFileBytes bounds a file merged line by line; a larger file
// changed on both sides is a conflict.
const maxMergeFileBytes = 5 << 20

// merger merges trees three ways, file by file and line by line.
type merger struct {
	l           *Local
	dryRun      bool // compute ids without storing objects
	withContent bool // fill Conflict contents
	conflicts   []Conflict
}

func (m *merger) mergeCommits(ours, theirs *object.Commit) (plumbing.Hash, error) {
	base, err := m.l.ancestry.mergeBase(ours, theirs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return m.mergeCommitsBase(base, ours, theirs)
}

func (m *merger) mergeCommitsBase(base, ours, theirs *object.Commit) (plumbing.Hash, error) {
	var bt plumbing.Hash
	if base != nil {
		bt = base.TreeHash
	}
	return m.mergeTree(bt, ours.TreeHash, theirs.TreeHash, "")
}

func (m *merger) tree(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	out := map[string]object.TreeEntry{}
	if h.IsZero() {
		return out, nil
	}
	t, err := m.l.repo.TreeObject(h)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		out[e.Name] = e
	}
	return out, nil
}

func sameEntry(a, b object.TreeEntry, aok, bok bool) bool {
	if !aok || !bok {
		return aok == bok
	}
	return a.Mode == b.Mode && a.Hash == b.Hash
}

// mergeTree merges the trees b (base), o (ours) and t (theirs) and returns
// the merged tree's id (zero when it is empty).
func (m *merger) mergeTree(b, o, t plumbing.Hash, prefix string) (plumbing.Hash, error) {
	be, err := m.tree(b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	oe, err := m.tree(o)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	te, err := m.tree(t)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	names := map[string]bool{}
	for _, mp := range []map[string]object.TreeEntry{be, oe, te} {
		for n := range mp {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	out := &object.Tree{}
	for _, name := range sorted {
		path := prefix + name
		bx, bok := be[name]
		ox, ook := oe[name]
		tx, tok := te[name]
		var res object.TreeEntry
		var keep bool
		switch {
		case sameEntry(ox, tx, ook, tok):
			res, keep = ox, ook
		case sameEntry(bx, ox, bok, ook):
			res, keep = tx, tok
		case sameEntry(bx, tx, bok, tok):
			res, keep = ox, ook
		case ook && tok && ox.Mode == filemode.Dir && tx.Mode == filemode.Dir:
			var bh plumbing.Hash
			if bok && bx.Mode == filemode.Dir {
				bh = bx.Hash
			}
			h, err := m.mergeTree(bh, ox.Hash, tx.Hash, path+"/")
			if err != nil {
				return plumbing.ZeroHash, err
			}
			res, keep = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}, !h.IsZero()
		case ook && tok && isBlob(ox.Mode) && isBlob(tx.Mode) && (!bok || isBlob(bx.Mode)):
			e, ok, err := m.mergeFile(path, bx, ox, tx, bok)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if !ok {
				res, keep = ox, true // conflicted: ours stands in
			} else {
				res, keep = e, true
			}
		default:
			reason := "type"
			if !ook || !tok {
				reason = "modify/delete"
			}
			m.conflict(path, reason, bx, ox, tx, bok, ook, tok)
			res, keep = ox, ook
		}
		if keep {
			res.Name = name
			out.Entries = append(out.Entries, res)
		}
	}
	if len(out.Entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	sort.Slice(out.Entries, func(i, j int) bool {
		a, b := out.Entries[i], out.Entries[j]
		return sortKey(a.Name, a.Mode) < sortKey(b.Name, b.Mode)
	})
	return m.store(out.Encode)
}

func isBlob(mode filemode.FileMode) bool {
	return mode == filemode.Regular || mode == filemode.Executable || mode == filemode.Deprecated
}

// store encodes an object and stores it (or only hashes it in a dry run).
func (m *merger) store(encode func(plumbing.EncodedObject) error) (plumbing.Hash, error) {
	var obj plumbing.EncodedObject = &plumbing.MemoryObject{}
	if !m.dryRun {
		obj = m.l.st.NewEncodedObject()
	}
	if err := encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode object: %w", err)
	}
	if m.dryRun {
		return obj.Hash(), nil
	}
	h, err := m.l.st.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	return h, nil
}

// mergeFile merges one file changed on both sides.
func (m *merger) mergeFile(path string, b, o, t object.TreeEntry, bok bool) (object.TreeEntry, bool, error) {
	mode := o.Mode
	switch {
	case o.Mode == t.Mode:
	case bok && b.Mode == o.Mode:
		mode = t.Mode
	case bok && b.Mode == t.Mode:
	default:
		m.conflict(path, "mode", b, o, t, bok, true, true)
		return object.TreeEntry{}, false, nil
	}
	reason := "content"
	if !bok {
		reason = "add/add"
	}
	var baseText []byte
	var err error
	if bok {
		if baseText, err = m.l.objects.readBlob(b.Hash, maxMergeFileBytes); err != nil {
			m.conflict(path, reason, b, o, t, bok, true, true)
			return object.TreeEntry{}, false, nil
		}
	}
	ours, err1 := m.l.objects.readBlob(o.Hash, maxMergeFileBytes)
	theirs, err2 := m.l.objects.readBlob(t.Hash, maxMergeFileBytes)
	if err1 != nil || err2 != nil || isBinary(ours) || isBinary(theirs) || isBinary(baseText) {
		m.conflict(path, reason, b, o, t, bok, true, true)
		return object.TreeEntry{}, false, nil
	}
	merged, ok := merge3(string(baseText), string(ours), string(theirs))
	if !ok {
		m.conflict(path, reason, b, o, t, bok, true, true)
		return object.TreeEntry{}, false, nil
	}
	h, err := m.store(func(obj plumbing.EncodedObject) error {
		obj.SetType(plumbing.BlobObject)
		obj.SetSize(int64(len(merged)))
		w, err := obj.Writer()
		if err != nil {
			return err
		}
		if _, err := w.Write([]byte(merged)); err != nil {
			return err
		}
		return w.Close()
	})
	if err != nil {
		return object.TreeEntry{}, false, err
	}
	return object.TreeEntry{Mode: mode, Hash: h}, true, nil
}

func isBinary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0 }

func (m *merger) conflict(path, reason string, b, o, t object.TreeEntry, bok, ook, tok bool) {
	c := Conflict{Path: path, Reason: reason}
	if ook {
		c.OurPath = path
	}
	if tok {
		c.TheirPath = path
	}
	if m.withContent {
		read := func(e object.TreeEntry, ok bool) string {
			if !ok || !isBlob(e.Mode) {
				return ""
			}
			data, err := m.l.objects.readBlob(e.Hash, maxMergeFileBytes)
			if err != nil || isBinary(data) {
				return ""
			}
			return string(data)
		}
		c.BaseContent, c.OurContent, c.TheirContent = read(b, bok), read(o, ook), read(t, tok)
		if (reason == "content" || reason == "add/add") && ook && tok {
			c.Marked = markConflicts(c.BaseContent, c.OurContent, c.TheirContent, path, path)
		}
	}
	m.conflicts = append(m.conflicts, c)
}
