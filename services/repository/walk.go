package repository

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxWalkedLog is the most commits (offset and page) an unfiltered Log
// reads in-process; past it, or with any filter, git log runs.
const maxWalkedLog = 2000

// walkable reports whether Log with opt is read in-process: no path,
// author, message or date filter, a short walk. A first page of history
// is then a few object reads of a warm repository, cheaper than starting
// git (doc/performance.md).
func walkable(opt LogOptions) bool {
	return opt.Path == "" && opt.Author == "" && opt.Grep == "" && opt.Since.IsZero() && opt.Until.IsZero() &&
		!opt.Reverse && opt.Offset+opt.Limit <= maxWalkedLog
}

// pathWalkable reports whether Log with opt is walkPathLog's: a path
// (cleaned, returned) and no other filter. Its walk has no bound on the
// page (Offset and Limit count shown commits) but one on the commits it
// reads (maxPathWalk).
func pathWalkable(opt LogOptions) (string, bool, error) {
	if opt.Path == "" || opt.Author != "" || opt.Grep != "" || !opt.Since.IsZero() || !opt.Until.IsZero() || opt.Reverse {
		return "", false, nil
	}
	p, err := cleanDir(opt.Path)
	return p, err == nil && p != "", err
}

// walkLog is Log for a walkable opt: git log's default order (newest
// committer date first, ties in the order found), read with go-git.
func (l *Local) walkLog(ctx context.Context, opt LogOptions) (*LogPage, error) {
	start, err := l.resolve(ctx, opt.Ref)
	if err != nil {
		return nil, err
	}
	page := &LogPage{}
	skip := opt.Offset
	w := newWalker(l)
	w.push(start)
	for w.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := w.pop()
		parents, err := w.parents(c, opt.FirstParent)
		if err != nil {
			return nil, err
		}
		for _, p := range parents {
			w.push(p)
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(page.Commits) == opt.Limit {
			page.More = true
			break
		}
		page.Commits = append(page.Commits, toCommit(c))
	}
	return page, nil
}

// walker yields commits newest committer date first, each once.
type walker struct {
	l    *Local
	seen map[plumbing.Hash]bool
	q    dateQueue[*object.Commit]
}

func newWalker(l *Local) *walker {
	return &walker{l: l, seen: map[plumbing.Hash]bool{}}
}

func (w *walker) Len() int { return len(w.q.items) }

func (w *walker) push(c *object.Commit) {
	if w.seen[c.Hash] {
		return
	}
	w.seen[c.Hash] = true
	w.q.push(c, c.Committer.When.Unix())
}

func (w *walker) pop() *object.Commit { return w.q.pop() }

// parents loads c's parents (only the first with firstParent).
func (w *walker) parents(c *object.Commit, firstParent bool) ([]*object.Commit, error) {
	hashes := c.ParentHashes
	if firstParent && len(hashes) > 1 {
		hashes = hashes[:1]
	}
	out := make([]*object.Commit, 0, len(hashes))
	for _, h := range hashes {
		p, err := w.l.repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("parent %s of %s: %w", h, c.Hash, err)
		}
		out = append(out, p)
	}
	return out, nil
}
