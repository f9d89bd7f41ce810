package repository

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A Log with a path is git log's history simplification, walked
// in-process: git log -- path costs a process start (about 2.5 ms of CPU)
// besides the walk, which for a busy file is most of a first page
// (doc/performance.md, "list_commits with a path in-process"). The walk
// is git's (revision.c, try_to_simplify_commit and get_commit_action
// with the default options, dense and simplify_history):
//
//   - commits come newest committer date first, ties in the order found,
//     each once;
//   - a commit is compared with each parent in turn at the path; at the
//     first parent it is the same as (TREESAME), the walk follows that
//     parent only and the commit is not shown;
//   - a commit that differs from every parent is shown and its parents
//     are all followed; a root commit is shown when its tree has the
//     path;
//   - with FirstParent, only the first parent is compared and followed.
//
// "The same at the path" is git's literal pathspec (glmcp runs git with
// --literal-pathspecs): the entry at the path, or anything under it when
// it is a directory, has the same mode and object in both trees. The
// comparison with the first parent is first asked of the commit-graph's
// changed-path Bloom filter (bloom.go), as git asks it: "not changed"
// needs no tree read. A commit newer than the graph is compared by its
// trees.

// maxPathWalk bounds the commits a Log with a path walks in-process
// (about 2 µs of CPU each from the commit-graph). A path touched once long
// ago has the walk read the whole history, as git does; past this bound
// git log answers instead (its walk of the same commits is faster), the
// walk so far costing some 2 ms against git's tens.
const maxPathWalk = 1000

// pathWalk compares commits at one path.
type pathWalk struct {
	l       *Local
	comps   []string // the path's components
	prefix  []string // the path and its leading directories, as Bloom keys
	g       *commitGraph
	keys    map[[2]uint32][]bloomKey // per filter version and hash count; nil: none
	entries map[levelTree]treeEntry
}

type levelTree struct {
	tree  plumbing.Hash
	level int
}

// treeEntry is an entry of a tree: its canonical mode and object; ok
// false when the tree has no entry of that name.
type treeEntry struct {
	mode uint32
	hash plumbing.Hash
	ok   bool
}

const modeDir = 0o40000

// hashLen is the length of an object id.
const hashLen = len(plumbing.Hash{})

// walkPathLog is Log for opt with a clean, non-empty path. It reports
// false, with no page, when the walk passed maxPathWalk commits.
func (l *Local) walkPathLog(ctx context.Context, opt LogOptions, path string) (*LogPage, bool, error) {
	start, err := l.resolve(ctx, opt.Ref)
	if err != nil {
		return nil, false, err
	}
	g := openCommitGraph(l.dir)
	defer g.Close()
	w := &pathWalk{l: l, comps: strings.Split(path, "/"), g: g,
		keys: map[[2]uint32][]bloomKey{}, entries: map[levelTree]treeEntry{}}
	for i := len(w.comps); i > 0; i-- {
		w.prefix = append(w.prefix, strings.Join(w.comps[:i], "/"))
	}
	an := l.ancestry
	first := objectNode(start)
	if g != nil {
		if n, err := an.commitNode(g, start.Hash); err == nil && n.inGraph {
			first = n
			first.obj = start
		}
	}
	var q dateQueue[graphCommit]
	seen := map[plumbing.Hash]bool{first.hash: true}
	q.push(first, first.when)
	page := &LogPage{}
	skip := opt.Offset
	for walked := 0; q.Len() > 0; walked++ {
		if walked == maxPathWalk {
			return nil, false, nil
		}
		if walked%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		c := q.pop()
		parents := c.parents
		if opt.FirstParent && len(parents) > 1 {
			parents = parents[:1]
		}
		show := true
		var next []graphCommit
		if len(parents) == 0 {
			same, err := w.same(plumbing.ZeroHash, c.tree)
			if err != nil {
				return nil, false, err
			}
			show = !same
		}
		for i, ph := range parents {
			p, err := an.commitNode(g, ph)
			if err != nil {
				return nil, false, fmt.Errorf("parent %s of %s: %w", ph, c.hash, err)
			}
			next = append(next, p)
			same := i == 0 && !w.mayHaveChanged(c)
			if !same {
				if same, err = w.same(p.tree, c.tree); err != nil {
					return nil, false, err
				}
			}
			if same {
				next, show = next[i:], false
				break
			}
		}
		for _, p := range next {
			if !seen[p.hash] {
				seen[p.hash] = true
				q.push(p, p.when)
			}
		}
		if !show {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(page.Commits) == opt.Limit {
			page.More = true
			break
		}
		obj, err := an.commit(c)
		if err != nil {
			return nil, false, err
		}
		page.Commits = append(page.Commits, toCommit(obj))
	}
	return page, true, nil
}

// mayHaveChanged reports whether c's Bloom filter may hold the path
// (always, without a filter): false proves c the same as its first
// parent there.
func (w *pathWalk) mayHaveChanged(c graphCommit) bool {
	if w.g == nil || !c.inGraph {
		return true
	}
	f, ly := w.g.filter(c.pos)
	if f == nil {
		return true
	}
	id := [2]uint32{ly.version, ly.numHashes}
	keys, ok := w.keys[id]
	if !ok {
		for _, p := range w.prefix {
			k, ok := newBloomKey(p, ly.version, ly.numHashes)
			if !ok {
				keys = nil
				break
			}
			keys = append(keys, k)
		}
		w.keys[id] = keys
	}
	if keys == nil {
		return true
	}
	for _, k := range keys {
		if !k.mayContain(f) {
			return false
		}
	}
	return true
}

// same reports whether trees a and b (the zero hash: no tree) hold the
// same at the path: git's REV_TREE_SAME for a literal pathspec.
func (w *pathWalk) same(a, b plumbing.Hash) (bool, error) {
	last := len(w.comps) - 1
	for level := range w.comps {
		if a == b {
			return true, nil
		}
		var ea, eb treeEntry
		var err error
		if !a.IsZero() {
			if ea, err = w.entry(a, level); err != nil {
				return false, err
			}
		}
		if !b.IsZero() {
			if eb, err = w.entry(b, level); err != nil {
				return false, err
			}
		}
		switch {
		case ea == eb: // the same entry, or none in either
			return true, nil
		case level == last:
			return false, nil
		}
		// Only directories lead further; one side without the directory
		// is the same only if the other has nothing under the path.
		a, b = plumbing.ZeroHash, plumbing.ZeroHash
		if ea.ok && ea.mode == modeDir {
			a = ea.hash
		}
		if eb.ok && eb.mode == modeDir {
			b = eb.hash
		}
	}
	return a == b, nil
}

// entry is the entry named by the path's component at level in tree h
// (read once per walk).
func (w *pathWalk) entry(h plumbing.Hash, level int) (treeEntry, error) {
	key := levelTree{h, level}
	if e, ok := w.entries[key]; ok {
		return e, nil
	}
	o, err := w.l.repo.Storer.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return treeEntry{}, fmt.Errorf("tree %s: %w", h, err)
	}
	r, err := o.Reader()
	if err != nil {
		return treeEntry{}, fmt.Errorf("tree %s: %w", h, err)
	}
	raw, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return treeEntry{}, fmt.Errorf("tree %s: %w", h, err)
	}
	e, err := findEntry(raw, w.comps[level])
	if err != nil {
		return treeEntry{}, fmt.Errorf("tree %s: %w", h, err)
	}
	w.entries[key] = e
	return e, nil
}

// findEntry finds name in a raw tree ("<octal mode> <name>\x00<id>"
// entries), its mode canonical as git's diff reads it (a regular file is
// 100644 or 100755 whatever other permission bits it was written with).
func findEntry(raw []byte, name string) (treeEntry, error) {
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		nul := bytes.IndexByte(raw, 0)
		if sp <= 0 || nul < sp || len(raw) < nul+1+hashLen {
			return treeEntry{}, fmt.Errorf("malformed tree entry")
		}
		var mode uint32
		for _, c := range raw[:sp] {
			if c < '0' || c > '7' {
				return treeEntry{}, fmt.Errorf("malformed tree entry mode %q", raw[:sp])
			}
			mode = mode<<3 | uint32(c-'0')
		}
		if string(raw[sp+1:nul]) == name {
			e := treeEntry{mode: mode, ok: true}
			copy(e.hash[:], raw[nul+1:])
			if mode&0o170000 == 0o100000 {
				e.mode = 0o100644
				if mode&0o100 != 0 {
					e.mode = 0o100755
				}
			}
			return e, nil
		}
		raw = raw[nul+1+hashLen:]
	}
	return treeEntry{}, nil
}
