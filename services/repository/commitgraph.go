package repository

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	commitgraph "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A walk over the history (the merge base of two branches) reads each
// commit's parents and committer time. Decoded from the pack that is an
// inflate and a parse per commit, some milliseconds for the few hundred
// commits between two branches; housekeeping's commit-graph holds the
// same fields in fixed-size records, as git itself reads them
// (doc/repositories.md, "Housekeeping"). Its files are mapped into memory,
// as git maps them: go-git reads a record in several small reads, each a
// system call on a plain file, which would cost more than the decoding.

// commitGraph is the repository's commit-graph, opened for one walk; nil
// when it has none (a repository not maintained yet), which only makes
// the walk read the objects instead.
type commitGraph struct {
	idx    commitgraph.Index
	layers []graphLayer // its files, oldest first, for their Bloom filters (bloom.go)
}

// openCommitGraph opens the commit-graph of the repository in dir: the
// split chain housekeeping writes, or a single file an operator's git gc
// may have left. Any failure to read it is a repository without one.
func openCommitGraph(dir string) *commitGraph {
	info := filepath.Join(dir, "objects", "info")
	if f, err := mapFile(filepath.Join(info, "commit-graph")); err == nil {
		idx, err := commitgraph.OpenFileIndex(f)
		if err != nil {
			f.Close()
			return nil
		}
		return &commitGraph{idx: idx, layers: []graphLayer{readGraphLayer(f.b, 0)}}
	}
	chain, err := os.Open(filepath.Join(info, "commit-graphs", "commit-graph-chain"))
	if err != nil {
		return nil
	}
	hashes, err := commitgraph.OpenChainFile(chain)
	chain.Close()
	if err != nil || len(hashes) == 0 {
		return nil
	}
	var idx commitgraph.Index
	var layers []graphLayer
	base := uint32(0)
	for _, h := range hashes {
		f, err := mapFile(filepath.Join(info, "commit-graphs", "graph-"+h+".graph"))
		if err == nil {
			var next commitgraph.Index
			if next, err = commitgraph.OpenFileIndexWithParent(f, idx); err == nil {
				idx = next
				ly := readGraphLayer(f.b, base)
				layers = append(layers, ly)
				base += ly.n
				continue
			}
			f.Close()
		}
		// A chain being rewritten under us (housekeeping replaces it
		// whole): no graph this time.
		if idx != nil {
			idx.Close()
		}
		return nil
	}
	return &commitGraph{idx: idx, layers: layers}
}

// filter is the Bloom filter of the commit at position i of the graph,
// with the layer it is in; nil when it has none.
func (g *commitGraph) filter(i uint32) ([]byte, *graphLayer) {
	for k := len(g.layers) - 1; k >= 0; k-- {
		if ly := &g.layers[k]; i >= ly.base {
			return ly.filter(i), ly
		}
	}
	return nil, nil
}

// mapped is a file mapped read-only into memory. git replaces a
// commit-graph file by renaming a new one over it and deletes the layers
// a merge of the chain made obsolete, but never rewrites one in place, so
// a mapping reads the same bytes for the walk it serves.
type mapped struct {
	b []byte
	*bytes.Reader
}

// mapFile maps the file at path.
func mapFile(path string) (*mapped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 || int64(int(fi.Size())) != fi.Size() {
		return nil, errors.New("commit-graph: empty or too large to map")
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	return &mapped{b: b, Reader: bytes.NewReader(b)}, nil
}

func (m *mapped) Close() error { return syscall.Munmap(m.b) }

// Close releases the graph's files.
func (g *commitGraph) Close() {
	if g != nil {
		g.idx.Close()
	}
}

// graphCommit is what a history walk reads of a commit.
type graphCommit struct {
	hash    plumbing.Hash
	when    int64 // committer time, Unix seconds
	parents []plumbing.Hash
	tree    plumbing.Hash
	pos     uint32 // its position in the commit-graph, when inGraph
	inGraph bool
	obj     *object.Commit // when read from the objects
}

// commitNode reads commit h from g when it holds it, else from the
// objects (a commit newer than the last housekeeping).
func (an ancestry) commitNode(g *commitGraph, h plumbing.Hash) (graphCommit, error) {
	if g != nil {
		if i, err := g.idx.GetIndexByHash(h); err == nil {
			d, err := g.idx.GetCommitDataByIndex(i)
			if err == nil {
				return graphCommit{hash: h, when: d.When.Unix(), parents: d.ParentHashes, tree: d.TreeHash, pos: i, inGraph: true}, nil
			}
			if !errors.Is(err, plumbing.ErrObjectNotFound) {
				return graphCommit{}, err
			}
		}
	}
	c, err := an.repo.CommitObject(h)
	if err != nil {
		return graphCommit{}, err
	}
	return objectNode(c), nil
}

func objectNode(c *object.Commit) graphCommit {
	return graphCommit{hash: c.Hash, when: c.Committer.When.Unix(), parents: c.ParentHashes, tree: c.TreeHash, obj: c}
}

// commit is n as a commit object.
func (an ancestry) commit(n graphCommit) (*object.Commit, error) {
	if n.obj != nil {
		return n.obj, nil
	}
	return an.repo.CommitObject(n.hash)
}
