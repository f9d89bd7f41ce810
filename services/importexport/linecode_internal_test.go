package importexport

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

// Ensure a diff note's line code numbers its line as GitLab's diff parser
// does: an added line carries the old counter of its place, a removed one
// the new counter, a context line both; a line not in the diff, or no
// diff, falls back to the position's own lines (0 for a missing side).
func TestDiffLineCode(t *testing.T) {
	d := &exMergeRequestDiff{Files: []exDiffFile{
		{OldPath: "a.go", NewPath: "a.go", UTF8Diff: "@@ -10,4 +10,5 @@ func f() {\n ctx\n-old\n+new one\n+new two\n ctx2\n\\ No newline at end of file\n"},
		{OldPath: "b.go", NewPath: "b.go", NewFile: true, UTF8Diff: "@@ -0,0 +1,2 @@\n+x\n+y\n"},
	}}
	hash := func(path string) string { h := sha1.Sum([]byte(path)); return hex.EncodeToString(h[:]) }
	n := func(v int) *int { return &v }
	for _, c := range []struct {
		pos  models.DiffPosition
		want string
	}{
		{models.DiffPosition{OldPath: "a.go", NewPath: "a.go", NewLine: n(12)}, hash("a.go") + "_12_12"},                 // "new two"
		{models.DiffPosition{OldPath: "a.go", NewPath: "a.go", NewLine: n(11)}, hash("a.go") + "_12_11"},                 // "new one"
		{models.DiffPosition{OldPath: "a.go", NewPath: "a.go", OldLine: n(11)}, hash("a.go") + "_11_11"},                 // "old"
		{models.DiffPosition{OldPath: "a.go", NewPath: "a.go", OldLine: n(12), NewLine: n(13)}, hash("a.go") + "_12_13"}, // "ctx2"
		{models.DiffPosition{NewPath: "b.go", NewLine: n(2)}, hash("b.go") + "_0_2"},
		{models.DiffPosition{OldPath: "c.go", NewPath: "c.go", NewLine: n(7)}, hash("c.go") + "_0_7"}, // not in the diff
	} {
		if got := diffLineCode(d, &c.pos); got != c.want {
			t.Errorf("line code of %+v = %s, want %s", c.pos, got, c.want)
		}
	}
	if got, want := diffLineCode(nil, &models.DiffPosition{NewPath: "x", OldLine: n(3), NewLine: n(4)}), hash("x")+"_3_4"; got != want {
		t.Errorf("without a diff: %s, want %s", got, want)
	}
}
