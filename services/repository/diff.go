package repository

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Defaults of CompareOptions.
const (
	defaultMaxCommits    = 1000
	defaultMaxPatchBytes = 200 << 10
)

// Compare returns what head adds to base since their merge base (GitLab's
// merge request diff): the commits in head that are not in base, newest
// first, and the diff of the merge base's tree against head's tree, with
// renames detected.
func (l *Local) Compare(ctx context.Context, base, head string, opt CompareOptions) (*Comparison, error) {
	if opt.MaxCommits <= 0 {
		opt.MaxCommits = defaultMaxCommits
	}
	bc, err := l.resolve(ctx, base)
	if err != nil {
		return nil, err
	}
	hc, err := l.resolve(ctx, head)
	if err != nil {
		return nil, err
	}
	out := &Comparison{BaseSHA: bc.Hash.String(), HeadSHA: hc.Hash.String()}
	from := bc
	if mb, err := mergeBase(bc, hc); err != nil {
		return nil, err
	} else if mb != nil {
		out.MergeBaseSHA = mb.Hash.String()
		from = mb
	}
	if out.Commits, err = l.revList(ctx, hc, bc, opt.MaxCommits); err != nil {
		return nil, err
	}
	if !opt.SkipDiffs {
		if out.Files, err = l.diffCommits(ctx, from, hc, opt.MaxPatchBytes, opt.SkipPatches); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CommitDiff returns the diff rev introduces against its first parent
// (against the empty tree for a root commit).
func (l *Local) CommitDiff(ctx context.Context, rev string, opt CompareOptions) ([]FileDiff, error) {
	c, err := l.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	var parent *object.Commit
	if len(c.ParentHashes) > 0 {
		if parent, err = l.repo.CommitObject(c.ParentHashes[0]); err != nil {
			return nil, fmt.Errorf("parent of %s: %w", c.Hash, err)
		}
	}
	return l.diffCommits(ctx, parent, c, opt.MaxPatchBytes, opt.SkipPatches)
}

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

// diffCommits diffs from's tree (nil: empty) against to's.
func (l *Local) diffCommits(ctx context.Context, from, to *object.Commit, maxPatch int, namesOnly bool) ([]FileDiff, error) {
	if maxPatch <= 0 {
		maxPatch = defaultMaxPatchBytes
	}
	var fromTree *object.Tree
	var err error
	if from != nil {
		if fromTree, err = from.Tree(); err != nil {
			return nil, fmt.Errorf("tree of %s: %w", from.Hash, err)
		}
	}
	toTree, err := to.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", to.Hash, err)
	}
	changes, err := object.DiffTreeWithOptions(ctx, fromTree, toTree, object.DefaultDiffTreeOptions)
	if err != nil {
		return nil, fmt.Errorf("diff trees: %w", err)
	}
	out := make([]FileDiff, 0, len(changes))
	for _, ch := range changes {
		fd, err := fileDiff(ctx, ch, maxPatch, namesOnly)
		if err != nil {
			return nil, err
		}
		out = append(out, fd)
	}
	return out, nil
}

func fileDiff(ctx context.Context, ch *object.Change, maxPatch int, namesOnly bool) (FileDiff, error) {
	fd := FileDiff{OldPath: ch.From.Name, NewPath: ch.To.Name, AMode: "0", BMode: "0"}
	if ch.From.Name != "" {
		fd.AMode = fmt.Sprintf("%o", uint32(ch.From.TreeEntry.Mode))
	} else {
		fd.OldPath, fd.NewFile = ch.To.Name, true
	}
	if ch.To.Name != "" {
		fd.BMode = fmt.Sprintf("%o", uint32(ch.To.TreeEntry.Mode))
	} else {
		fd.NewPath, fd.DeletedFile = ch.From.Name, true
	}
	fd.RenamedFile = ch.From.Name != "" && ch.To.Name != "" && ch.From.Name != ch.To.Name
	if namesOnly || ch.From.TreeEntry.Mode == filemode.Submodule || ch.To.TreeEntry.Mode == filemode.Submodule {
		return fd, nil
	}
	patch, err := ch.PatchContext(ctx)
	if err != nil {
		return fd, fmt.Errorf("diff %s: %w", fd.NewPath, err)
	}
	fps := patch.FilePatches()
	if len(fps) == 0 {
		return fd, nil
	}
	fp := fps[0]
	if fp.IsBinary() {
		fd.Binary = true
		return fd, nil
	}
	for _, c := range fp.Chunks() {
		n := strings.Count(c.Content(), "\n")
		if !strings.HasSuffix(c.Content(), "\n") && c.Content() != "" {
			n++
		}
		switch c.Type() {
		case fdiff.Add:
			fd.Additions += n
		case fdiff.Delete:
			fd.Deletions += n
		}
	}
	var buf bytes.Buffer
	if err := fdiff.NewUnifiedEncoder(&buf, fdiff.DefaultContextLines).Encode(onePatch{fp}); err != nil {
		return fd, fmt.Errorf("encode diff of %s: %w", fd.NewPath, err)
	}
	text := buf.String()
	if i := strings.Index(text, "\n@@"); i >= 0 {
		text = text[i+1:]
	} else {
		text = ""
	}
	if len(text) > maxPatch {
		fd.TooLarge = true
		return fd, nil
	}
	fd.Diff = text
	return fd, nil
}

// onePatch is a diff.Patch of one file, for the unified encoder.
type onePatch struct{ fp fdiff.FilePatch }

func (p onePatch) FilePatches() []fdiff.FilePatch { return []fdiff.FilePatch{p.fp} }
func (p onePatch) Message() string                { return "" }

// revList returns the commits reachable from include and not from exclude,
// newest first, at most max (git rev-list exclude..include).
func (l *Local) revList(ctx context.Context, include, exclude *object.Commit, max int) ([]Commit, error) {
	const uninteresting = 1
	flags := map[plumbing.Hash]uint8{}
	parsed := map[plumbing.Hash]*object.Commit{}
	var q commitQueue
	push := func(c *object.Commit, f uint8) {
		if _, ok := flags[c.Hash]; ok {
			flags[c.Hash] |= f
			return
		}
		flags[c.Hash] = f
		parsed[c.Hash] = c
		q.seq++
		heap.Push(&q, queued{c: c, seq: q.seq})
	}
	// markDown propagates uninteresting to ancestors already walked.
	var markDown func(h plumbing.Hash)
	markDown = func(h plumbing.Hash) {
		stack := []plumbing.Hash{h}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c := parsed[x]
			if c == nil {
				continue
			}
			for _, p := range c.ParentHashes {
				if f, ok := flags[p]; ok && f&uninteresting == 0 {
					flags[p] |= uninteresting
					stack = append(stack, p)
				}
			}
		}
	}
	push(include, 0)
	push(exclude, uninteresting)
	var order []plumbing.Hash
	for q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		allUninteresting := true
		for _, it := range q.items {
			if flags[it.c.Hash]&uninteresting == 0 {
				allUninteresting = false
				break
			}
		}
		if allUninteresting {
			break
		}
		c := heap.Pop(&q).(queued).c
		f := flags[c.Hash]
		if f&uninteresting == 0 {
			order = append(order, c.Hash)
		}
		for _, ph := range c.ParentHashes {
			p, err := l.repo.CommitObject(ph)
			if err != nil {
				return nil, fmt.Errorf("parent %s of %s: %w", ph, c.Hash, err)
			}
			push(p, f&uninteresting)
			if f&uninteresting != 0 {
				markDown(ph)
			}
		}
	}
	out := []Commit{}
	for _, h := range order {
		if flags[h]&uninteresting != 0 {
			continue
		}
		if len(out) == max {
			break
		}
		out = append(out, toCommit(parsed[h]))
	}
	return out, nil
}
