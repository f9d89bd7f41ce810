package repository

import (
	"container/heap"
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"gitlab.com/glmcp/glmcp/models"
)

// maxLogPage bounds a Log page.
const maxLogPage = 1000

// Log lists commits reachable from opt.Ref, newest committer date first
// (git log's default order), one page at a time. The walk stops as soon as
// the page (and one more commit, to set More) is found, so the first page
// of a long history reads only that many commits unless a filter has to
// look further.
func (l *Local) Log(ctx context.Context, opt LogOptions) (*LogPage, error) {
	if opt.Offset < 0 || opt.Limit < 0 {
		return nil, fmt.Errorf("offset and limit must not be negative: %w", models.ErrInvalidInput)
	}
	if opt.Limit == 0 {
		opt.Limit = 20
	}
	opt.Limit = min(opt.Limit, maxLogPage)
	path := ""
	if opt.Path != "" {
		p, err := cleanDir(opt.Path)
		if err != nil {
			return nil, err
		}
		path = p
	}
	start, err := l.resolve(ctx, opt.Ref)
	if err != nil {
		return nil, err
	}
	author := strings.ToLower(opt.Author)
	page := &LogPage{}
	skip := opt.Offset
	w := newWalker(l)
	w.push(start)
	for w.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := w.pop()
		if !opt.Since.IsZero() && c.Committer.When.Before(opt.Since) {
			break // everything left in the queue is older still
		}
		parents, err := w.parents(c, opt.FirstParent)
		if err != nil {
			return nil, err
		}
		shown := true
		if path != "" {
			var same *object.Commit
			if shown, same, err = w.touches(c, parents, path); err != nil {
				return nil, err
			}
			if same != nil {
				parents = []*object.Commit{same}
			}
		}
		for _, p := range parents {
			w.push(p)
		}
		if !shown || (!opt.Until.IsZero() && c.Committer.When.After(opt.Until)) {
			continue
		}
		if author != "" && !strings.Contains(strings.ToLower(c.Author.Name+" <"+c.Author.Email+">"), author) {
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
		page.Commits = append(page.Commits, toCommit(c))
	}
	return page, nil
}

// touches applies git's default history simplification for path: a commit
// whose path is identical to one parent's is not shown, and only that
// parent is followed (returned as same).
func (w *walker) touches(c *object.Commit, parents []*object.Commit, path string) (bool, *object.Commit, error) {
	mine, err := w.pathHash(c, path)
	if err != nil {
		return false, nil, err
	}
	if len(parents) == 0 {
		return !mine.IsZero(), nil, nil
	}
	for _, p := range parents {
		theirs, err := w.pathHash(p, path)
		if err != nil {
			return false, nil, err
		}
		if theirs == mine {
			return false, p, nil
		}
	}
	return true, nil, nil
}

// pathHash returns the object id at path in c's tree (zero when absent).
// Each commit is looked up once: as a parent, then again when walked.
func (w *walker) pathHash(c *object.Commit, path string) (plumbing.Hash, error) {
	if h, ok := w.paths[c.Hash]; ok {
		return h, nil
	}
	h, err := pathHashOf(c, path)
	if err == nil {
		w.paths[c.Hash] = h
	}
	return h, err
}

func pathHashOf(c *object.Commit, path string) (plumbing.Hash, error) {
	tree, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("tree of %s: %w", c.Hash, err)
	}
	e, err := tree.FindEntry(path)
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	return e.Hash, nil
}

// walker yields commits newest committer date first, each once.
type walker struct {
	l     *Local
	seen  map[plumbing.Hash]bool
	paths map[plumbing.Hash]plumbing.Hash // pathHash memo
	q     commitQueue
}

func newWalker(l *Local) *walker {
	return &walker{l: l, seen: map[plumbing.Hash]bool{}, paths: map[plumbing.Hash]plumbing.Hash{}}
}

func (w *walker) Len() int { return len(w.q.items) }

func (w *walker) push(c *object.Commit) {
	if w.seen[c.Hash] {
		return
	}
	w.seen[c.Hash] = true
	w.q.seq++
	heap.Push(&w.q, queued{c: c, seq: w.q.seq})
}

func (w *walker) pop() *object.Commit { return heap.Pop(&w.q).(queued).c }

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

type queued struct {
	c   *object.Commit
	seq int
}

// commitQueue is a max-heap on committer time; ties keep push order.
type commitQueue struct {
	items []queued
	seq   int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.c.Committer.When.Equal(b.c.Committer.When) {
		return a.c.Committer.When.After(b.c.Committer.When)
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	n := len(q.items) - 1
	it := q.items[n]
	q.items = q.items[:n]
	return it
}
