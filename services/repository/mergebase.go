package repository

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ancestry answers questions about a repository's history graph (merge
// bases), reading commits from the commit-graph file where it has them.
type ancestry struct {
	dir  string
	repo *git.Repository
}

// mergeBase returns the best common ancestor of a and b (nil when they
// share no history), as git merge-base does: both sides are walked newest
// committer date first, painting each commit with the side(s) it is
// reachable from, until only commits below a common ancestor are left
// (git's paint_down_to_common). Only the commits between the tips and the
// merge base are read, so the cost follows how far the branches diverged,
// not the length of the history (go-git's Commit.MergeBase indexes every
// ancestor); they are read from the commit-graph where it has them
// (commitgraph.go). When the walk finds several candidates (criss-cross
// merges), go-git's exhaustive MergeBase picks among them.
func (an ancestry) mergeBase(a, b *object.Commit) (*object.Commit, error) {
	if a.Hash == b.Hash {
		return a, nil
	}
	if g := openCommitGraph(an.dir); g != nil {
		base, err := an.paintDown(g, a, b)
		g.Close()
		if err == nil {
			return base, nil
		}
		// A commit-graph that cannot be read says nothing the objects
		// do not: walk them instead.
	}
	return an.paintDown(nil, a, b)
}

// paintDown is mergeBase's walk, reading commits through g (nil: from
// the objects).
func (an ancestry) paintDown(g *commitGraph, a, b *object.Commit) (*object.Commit, error) {
	const (
		side1  = 1
		side2  = 2
		stale  = 4
		result = 8
	)
	flags := map[plumbing.Hash]uint8{}
	var q dateQueue[graphCommit]
	push := func(c graphCommit, f uint8) {
		flags[c.hash] |= f
		q.push(c, c.when)
	}
	push(objectNode(a), side1)
	push(objectNode(b), side2)
	var found []graphCommit
	nonStale := func() bool {
		for _, it := range q.items {
			if flags[it.v.hash]&stale == 0 {
				return true
			}
		}
		return false
	}
	for q.Len() > 0 && nonStale() {
		c := q.pop()
		f := flags[c.hash] & (side1 | side2 | stale)
		if f == side1|side2 {
			if flags[c.hash]&result == 0 {
				flags[c.hash] |= result
				found = append(found, c)
			}
			f |= stale
		}
		for _, ph := range c.parents {
			if flags[ph]&f == f {
				continue
			}
			p, err := an.commitNode(g, ph)
			if err != nil {
				return nil, fmt.Errorf("merge base of %s and %s: parent %s: %w", a.Hash, b.Hash, ph, err)
			}
			push(p, f)
		}
	}
	// A candidate reached again from another one is not a best base.
	var bases []graphCommit
	for _, c := range found {
		if flags[c.hash]&stale == 0 {
			bases = append(bases, c)
		}
	}
	switch {
	case len(found) == 0:
		return nil, nil
	case len(bases) == 1:
		base, err := an.commit(bases[0])
		if err != nil {
			return nil, fmt.Errorf("merge base of %s and %s: %w", a.Hash, b.Hash, err)
		}
		return base, nil
	}
	all, err := a.MergeBase(b)
	if err != nil {
		return nil, fmt.Errorf("merge base of %s and %s: %w", a.Hash, b.Hash, err)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all[0], nil
}
