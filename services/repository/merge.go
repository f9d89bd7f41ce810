package repository

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	gdiff "github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"gitlab.com/glmcp/glmcp/models"
)

// maxMergeFileBytes bounds a file merged line by line; a larger file
// changed on both sides is a conflict.
const maxMergeFileBytes = 5 << 20

// Conflicts lists the files that merging source into target would leave
// conflicted, without writing anything.
func (l *Local) Conflicts(ctx context.Context, target, source string) ([]Conflict, error) {
	tc, err := l.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	sc, err := l.resolve(ctx, source)
	if err != nil {
		return nil, err
	}
	m := &merger{l: l, dryRun: true, withContent: true}
	if _, err := m.mergeCommits(tc, sc); err != nil {
		return nil, err
	}
	return m.conflicts, nil
}

// ConflictError is a merge that conflicts; it wraps models.ErrConflict.
type ConflictError struct{ Conflicts []Conflict }

func (e *ConflictError) Error() string {
	paths := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		paths[i] = c.Path
	}
	return fmt.Sprintf("merge conflicts in %s", strings.Join(paths, ", "))
}

func (e *ConflictError) Unwrap() error { return models.ErrConflict }

// Merge merges req.Source into the req.Target branch, then moves the
// branch with a compare-and-swap from the value the merge was computed
// on. Conflicts are a *ConflictError; a guard that does not hold, or a
// target that moved meanwhile, is models.ErrConflict; nothing is changed
// in either case.
func (l *Local) Merge(ctx context.Context, req MergeRequest) (*MergeResult, error) {
	if err := ValidateBranchName(req.Target); err != nil {
		return nil, err
	}
	method := req.Method
	if method == "" {
		method = MergeMethodMerge
	}
	if method != MergeMethodMerge && method != MergeMethodFastForward && method != MergeMethodRebaseMerge {
		return nil, fmt.Errorf("merge method %q is not merge, rebase_merge or ff: %w", method, models.ErrInvalidInput)
	}
	if strings.TrimSpace(req.Author.Name) == "" || strings.TrimSpace(req.Author.Email) == "" {
		return nil, fmt.Errorf("merge author needs a name and an e-mail: %w", models.ErrInvalidInput)
	}
	targetRef := plumbing.NewBranchReferenceName(req.Target)
	old, err := l.readRef(targetRef)
	if err != nil {
		return nil, err
	}
	if old.IsZero() {
		return nil, fmt.Errorf("target branch %q: %w", req.Target, models.ErrNotFound)
	}
	if req.ExpectedTargetSHA != "" && !strings.EqualFold(req.ExpectedTargetSHA, old.String()) {
		return nil, fmt.Errorf("target branch %q moved: %w", req.Target, models.ErrConflict)
	}
	tc, err := l.peel(old)
	if err != nil {
		return nil, err
	}
	sc, err := l.resolve(ctx, req.Source)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if req.ExpectedSourceSHA != "" && !strings.EqualFold(req.ExpectedSourceSHA, sc.Hash.String()) {
		return nil, fmt.Errorf("SHA does not match HEAD of source branch: %s: %w", sc.Hash, models.ErrConflict)
	}
	base, err := l.mergeBase(tc, sc)
	if err != nil {
		return nil, err
	}
	if base == nil {
		return nil, fmt.Errorf("%s and %s share no history: %w", req.Source, req.Target, models.ErrInvalidInput)
	}
	if base.Hash == sc.Hash {
		return nil, fmt.Errorf("%s is already merged into %s: %w", req.Source, req.Target, models.ErrInvalidInput)
	}
	res := &MergeResult{MergeBase: base.Hash.String()}
	committer := committerOf(req.Author, req.Committer)
	now := committer.When
	sig := func(when time.Time) object.Signature {
		return object.Signature{Name: req.Author.Name, Email: req.Author.Email, When: when}
	}
	ffPossible := base.Hash == tc.Hash
	if (method == MergeMethodFastForward || method == MergeMethodRebaseMerge) && !ffPossible {
		return nil, fmt.Errorf("%s cannot be fast-forwarded to %s; rebase the source branch first: %w", req.Target, req.Source, models.ErrConflict)
	}
	head := sc
	if req.Squash {
		msg := req.SquashMessage
		if strings.TrimSpace(msg) == "" {
			msg = sc.Message
		}
		squash := &object.Commit{
			Author:    object.Signature{Name: sc.Author.Name, Email: sc.Author.Email, When: sc.Author.When},
			Committer: committer, Message: ensureNewline(msg), TreeHash: sc.TreeHash,
			ParentHashes: []plumbing.Hash{base.Hash},
		}
		h, err := l.writeCommit(squash)
		if err != nil {
			return nil, err
		}
		squash.Hash = h
		res.SquashID = h.String()
		head = squash
	}
	var newHead plumbing.Hash
	if method == MergeMethodFastForward {
		newHead, res.FastForward = head.Hash, true
	} else {
		m := &merger{l: l}
		tree, err := m.mergeCommitsBase(base, tc, head)
		if err != nil {
			return nil, err
		}
		if len(m.conflicts) > 0 {
			return nil, &ConflictError{Conflicts: m.conflicts}
		}
		msg := req.Message
		if strings.TrimSpace(msg) == "" {
			msg = fmt.Sprintf("Merge branch '%s' into '%s'", req.Source, req.Target)
		}
		mc := &object.Commit{
			Author: sig(now), Committer: committer, Message: ensureNewline(msg), TreeHash: tree,
			ParentHashes: []plumbing.Hash{tc.Hash, head.Hash},
		}
		if newHead, err = l.writeCommit(mc); err != nil {
			return nil, err
		}
	}
	res.CommitID = newHead.String()
	if req.BeforeMove != nil {
		if err := req.BeforeMove(res); err != nil {
			return nil, err
		}
	}
	if err := l.updateRef(targetRef, old, newHead); err != nil {
		return nil, fmt.Errorf("merge into %s: %w", req.Target, err)
	}
	return res, nil
}

// merger merges trees three ways, file by file and line by line.
type merger struct {
	l           *Local
	dryRun      bool // compute ids without storing objects
	withContent bool // fill Conflict contents
	conflicts   []Conflict
}

func (m *merger) mergeCommits(ours, theirs *object.Commit) (plumbing.Hash, error) {
	base, err := m.l.mergeBase(ours, theirs)
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
		if baseText, err = m.l.readBlob(b.Hash, maxMergeFileBytes); err != nil {
			m.conflict(path, reason, b, o, t, bok, true, true)
			return object.TreeEntry{}, false, nil
		}
	}
	ours, err1 := m.l.readBlob(o.Hash, maxMergeFileBytes)
	theirs, err2 := m.l.readBlob(t.Hash, maxMergeFileBytes)
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
			data, err := m.l.readBlob(e.Hash, maxMergeFileBytes)
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

// hunk replaces base lines [start, end) with lines.
type hunk struct {
	start, end int
	lines      []string
}

// splitLinesKeep splits s into lines that keep their "\n".
func splitLinesKeep(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// hunksOf returns the changes that turn base into other.
func hunksOf(base, other string) []hunk {
	var out []hunk
	pos := 0
	var cur *hunk
	for _, d := range gdiff.Do(base, other) {
		lines := splitLinesKeep(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			pos += len(lines)
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				cur = &hunk{start: pos, end: pos}
			}
			pos += len(lines)
			cur.end = pos
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				cur = &hunk{start: pos, end: pos}
			}
			cur.lines = append(cur.lines, lines...)
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// merge3 merges ours and theirs, both derived from base, line by line.
// Changes on both sides that overlap or touch conflict unless identical
// (as git's merge does); ok is false on a conflict.
func merge3(base, ours, theirs string) (string, bool) {
	return merge3With(base, ours, theirs, nil)
}

// markConflicts merges ours and theirs as merge3 does, and writes each
// conflicting region between git's conflict markers, labelled with
// ourLabel and theirLabel:
//
//	<<<<<<< ourLabel
//	ours
//	=======
//	theirs
//	>>>>>>> theirLabel
func markConflicts(base, ours, theirs, ourLabel, theirLabel string) string {
	out, _ := merge3With(base, ours, theirs, func(b *strings.Builder, vo, vt string) {
		b.WriteString("<<<<<<< " + ourLabel + "\n")
		b.WriteString(withFinalNewline(vo))
		b.WriteString("=======\n")
		b.WriteString(withFinalNewline(vt))
		b.WriteString(">>>>>>> " + theirLabel + "\n")
	})
	return out
}

func withFinalNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// merge3With is merge3; with mark set, a conflicting region is written by
// mark instead of ending the merge (ok is then false, out complete).
func merge3With(base, ours, theirs string, mark func(b *strings.Builder, vo, vt string)) (string, bool) {
	ok := true
	bl := splitLinesKeep(base)
	ho, ht := hunksOf(base, ours), hunksOf(base, theirs)
	var out strings.Builder
	pos, i, j := 0, 0, 0
	for i < len(ho) || j < len(ht) {
		// Start a cluster with the earlier hunk, then absorb every hunk of
		// either side that overlaps or touches it.
		var co, ct []hunk
		var start, end int
		if j >= len(ht) || (i < len(ho) && ho[i].start <= ht[j].start) {
			start, end = ho[i].start, ho[i].end
			co = append(co, ho[i])
			i++
		} else {
			start, end = ht[j].start, ht[j].end
			ct = append(ct, ht[j])
			j++
		}
		for {
			switch {
			case i < len(ho) && ho[i].start <= end:
				end = max(end, ho[i].end)
				co = append(co, ho[i])
				i++
			case j < len(ht) && ht[j].start <= end:
				end = max(end, ht[j].end)
				ct = append(ct, ht[j])
				j++
			default:
				goto done
			}
		}
	done:
		for _, l := range bl[pos:start] {
			out.WriteString(l)
		}
		vo, vt := applyHunks(bl, start, end, co), applyHunks(bl, start, end, ct)
		switch {
		case len(ct) == 0:
			out.WriteString(vo)
		case len(co) == 0:
			out.WriteString(vt)
		case vo == vt:
			out.WriteString(vo)
		case mark == nil:
			return "", false
		default:
			mark(&out, vo, vt)
			ok = false
		}
		pos = end
	}
	for _, l := range bl[pos:] {
		out.WriteString(l)
	}
	return out.String(), ok
}

// applyHunks returns base[start:end] with hs applied.
func applyHunks(base []string, start, end int, hs []hunk) string {
	var b strings.Builder
	pos := start
	for _, h := range hs {
		for _, l := range base[pos:h.start] {
			b.WriteString(l)
		}
		for _, l := range h.lines {
			b.WriteString(l)
		}
		pos = h.end
	}
	for _, l := range base[pos:end] {
		b.WriteString(l)
	}
	return b.String()
}
