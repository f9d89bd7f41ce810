package store

import (
	"fmt"
	"strings"
)

// UnifiedDiff returns the hunks of a unified diff (3 lines of context) that
// turn oldText into newText, without file header lines, as GitLab's API
// returns a file's diff. Both texts are split on "\n"; a final newline
// ends the last line. It is used to build the demo world's merge request
// diffs from real file contents, so the diffs always apply.
func UnifiedDiff(oldText, newText string) string {
	const context = 3
	ops := diffLines(splitLines(oldText), splitLines(newText))

	var b strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before the change to context lines
		// after the last change closer than 2*context to the previous one.
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		stop := min(len(ops), end+context+1)
		writeHunk(&b, ops[start:stop])
		i = stop
	}
	return b.String()
}

type diffOp struct {
	kind     byte // ' ', '-', '+'
	text     string
	old, new int // lines of each side consumed before this op
}

func writeHunk(b *strings.Builder, ops []diffOp) {
	var oldCount, newCount int
	for _, op := range ops {
		if op.kind != '+' {
			oldCount++
		}
		if op.kind != '-' {
			newCount++
		}
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(ops[0].old, oldCount), hunkRange(ops[0].new, newCount))
	for _, op := range ops {
		b.WriteByte(op.kind)
		b.WriteString(op.text)
		b.WriteByte('\n')
	}
}

// hunkRange formats a hunk side as git does: "start,count", "start" when
// count is 1, and the line before when count is 0.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, count)
}

// diffLines computes an edit script by longest common subsequence
// (quadratic: fine for the demo's small files).
func diffLines(a, b []string) []diffOp {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		default:
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		}
	}
	return ops
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
