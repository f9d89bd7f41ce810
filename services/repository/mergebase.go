package repository

import (
	"container/heap"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// mergeBase returns the best common ancestor of a and b (nil when they
// share no history), as git merge-base does: both sides are walked newest
// committer date first, painting each commit with the side(s) it is
// reachable from, until only commits below a common ancestor are left
// (git's paint_down_to_common). Only the commits between the tips and the
// merge base are read, so the cost follows how far the branches diverged,
// not the length of the history (go-git's Commit.MergeBase indexes every
// ancestor). When the walk finds several candidates (criss-cross merges),
// go-git's exhaustive MergeBase picks among them.
func mergeBase(a, b *object.Commit) (*object.Commit, error) {
	if a.Hash == b.Hash {
		return a, nil
	}
	const (
		side1  = 1
		side2  = 2
		stale  = 4
		result = 8
	)
	flags := map[plumbing.Hash]uint8{}
	var q commitQueue
	push := func(c *object.Commit, f uint8) {
		flags[c.Hash] |= f
		q.seq++
		heap.Push(&q, queued{c: c, seq: q.seq})
	}
	push(a, side1)
	push(b, side2)
	var found []*object.Commit
	nonStale := func() bool {
		for _, it := range q.items {
			if flags[it.c.Hash]&stale == 0 {
				return true
			}
		}
		return false
	}
	for q.Len() > 0 && nonStale() {
		c := heap.Pop(&q).(queued).c
		f := flags[c.Hash] & (side1 | side2 | stale)
		if f == side1|side2 {
			if flags[c.Hash]&result == 0 {
				flags[c.Hash] |= result
				found = append(found, c)
			}
			f |= stale
		}
		for i := range c.ParentHashes {
			ph := c.ParentHashes[i]
			if flags[ph]&f == f {
				continue
			}
			p, err := c.Parent(i)
			if err != nil {
				return nil, fmt.Errorf("merge base of %s and %s: parent %s: %w", a.Hash, b.Hash, ph, err)
			}
			push(p, f)
		}
	}
	// A candidate reached again from another one is not a best base.
	var bases []*object.Commit
	for _, c := range found {
		if flags[c.Hash]&stale == 0 {
			bases = append(bases, c)
		}
	}
	switch {
	case len(found) == 0:
		return nil, nil
	case len(bases) == 1:
		return bases[0], nil
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
