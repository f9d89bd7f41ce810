package repository

import (
	"strings"

	gdiff "github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

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
