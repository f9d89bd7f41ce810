package repository

import "testing"

func TestMerge3(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	for _, tc := range []struct {
		name, ours, theirs, want string
		ok                       bool
	}{
		{"apart", "A\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nG\n", "A\nb\nc\nd\ne\nf\nG\n", true},
		{"same change", "a\nX\nc\nd\ne\nf\ng\n", "a\nX\nc\nd\ne\nf\ng\n", "a\nX\nc\nd\ne\nf\ng\n", true},
		{"overlap", "a\nX\nc\nd\ne\nf\ng\n", "a\nY\nc\nd\ne\nf\ng\n", "", false},
		{"adjacent lines conflict", "a\nX\nc\nd\ne\nf\ng\n", "a\nb\nY\nd\ne\nf\ng\n", "", false},
		{"insert and delete apart", "a\nb\nnew\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\ng\n", "a\nb\nnew\nc\nd\ne\ng\n", true},
		{"one side only", base, "z\n" + base, "z\n" + base, true},
	} {
		got, ok := merge3(base, tc.ours, tc.theirs)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: merge3 = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMarkConflicts(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	got := markConflicts(base, "A\nX\nc\nd\ne\nf\ng\n", "a\nY\nc\nd\ne\nf\nG\n", "ours.txt", "theirs.txt")
	want := "<<<<<<< ours.txt\nA\nX\n=======\na\nY\n>>>>>>> theirs.txt\nc\nd\ne\nf\nG\n"
	if got != want {
		t.Errorf("markConflicts =\n%s\nwant\n%s", got, want)
	}
	if clean := markConflicts(base, "A\n"+base[2:], base, "o", "t"); clean != "A\n"+base[2:] {
		t.Errorf("no conflict: %q", clean)
	}
}
