package catalog

import (
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/internal/cursor"
	"gitlab.com/glmcp/glmcp/models"
)

// mintCursor returns the NextCursor of the first page of q (page size 2 over
// the fixture catalog).
func mintCursor(tb testing.TB, l *Lister, q Query) string {
	tb.Helper()
	p, err := pageTools(l, fixtureCatalog(), q)
	if err != nil {
		tb.Fatalf("Page: %v", err)
	}
	if p.NextCursor == "" {
		tb.Fatal("first page has no next cursor")
	}
	return p.NextCursor
}

// The cursor format itself (encoding, every flipped bit, versions,
// lengths) is tested in internal/cursor; these tests check what tools/list
// binds its cursors to.
func TestLister_Page_badCursor(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 2)
	base := Query{Edition: models.EditionEE, Verb: VerbToolsList, User: 1, Filter: mustFilter(t, "get_issue", "ci", "gl_")}
	good := mintCursor(t, l, base)
	flipped := []byte(good)
	flipped[len(flipped)/2] ^= 0x01 // stays in the alphabet: letters and digits differ in bit 0 only
	emptyName, err := cursor.New(testSecret, MaxCursorLen).Seal(binding(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	otherSecret, err := NewLister([]byte("another secret of enough length"), 2)
	if err != nil {
		t.Fatal(err)
	}

	with := func(edit func(*Query)) Query {
		q := base
		q.Cursor = good
		edit(&q)
		return q
	}
	tests := []struct {
		desc      string
		lister    *Lister
		q         Query
		wantInMsg string
	}{
		{desc: "garbage", q: with(func(q *Query) { q.Cursor = "not a cursor!" }), wantInMsg: "not base64url"},
		{desc: "short garbage", q: with(func(q *Query) { q.Cursor = "abc" }), wantInMsg: "truncated"},
		{desc: "flipped character", q: with(func(q *Query) { q.Cursor = string(flipped) }), wantInMsg: "invalid cursor"},
		{desc: "truncated by one character", q: with(func(q *Query) { q.Cursor = good[:len(good)-1] }), wantInMsg: "invalid cursor"},
		{desc: "over-long", q: with(func(q *Query) { q.Cursor = strings.Repeat("A", MaxCursorLen+1) }), wantInMsg: "longer than 512"},
		{desc: "empty position", q: with(func(q *Query) { q.Cursor = emptyName }), wantInMsg: "empty position"},
		{desc: "other verb", q: with(func(q *Query) { q.Verb = "resources/list" }), wantInMsg: "different method"},
		{desc: "other user", q: with(func(q *Query) { q.User = 2 }), wantInMsg: "another user"},
		{desc: "other tools header", q: with(func(q *Query) { q.Filter = mustFilter(t, "get_issue,search", "ci", "gl_") }), wantInMsg: "filter headers"},
		{desc: "other toolsets header", q: with(func(q *Query) { q.Filter = mustFilter(t, "get_issue", "", "gl_") }), wantInMsg: "different list"},
		{desc: "other prefix", q: with(func(q *Query) { q.Filter = mustFilter(t, "get_issue", "ci", "") }), wantInMsg: "different list"},
		{desc: "other edition", q: with(func(q *Query) { q.Edition = models.EditionCE }), wantInMsg: "different list"},
		{desc: "other read-only state", q: with(func(q *Query) { q.ReadOnly = true }), wantInMsg: "different list"},
		{desc: "other secret", lister: otherSecret, q: with(func(*Query) {}), wantInMsg: "signature mismatch"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			lister := l
			if tc.lister != nil {
				lister = tc.lister
			}
			p, err := pageTools(lister, fixtureCatalog(), tc.q)
			if !errors.Is(err, models.ErrInvalidInput) {
				t.Fatalf("Page = %+v, %v; want ErrInvalidInput", p, err)
			}
			if !strings.Contains(err.Error(), "invalid cursor") || !strings.Contains(err.Error(), tc.wantInMsg) {
				t.Errorf("error %q, want it to say %q", err, tc.wantInMsg)
			}
		})
	}

	t.Run("the untouched cursor works", func(t *testing.T) {
		t.Parallel()
		if _, err := pageTools(l, fixtureCatalog(), with(func(*Query) {})); err != nil {
			t.Fatalf("Page: %v", err)
		}
	})
}

func TestDecodeCursor_roundTrip(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 2)
	q := Query{Edition: models.EditionEE, ReadOnly: true, Verb: VerbToolsList}
	b := binding(q)
	maxName := l.signer.MaxPosition()
	for _, name := range []string{"a", "get_issue", "名前", strings.Repeat("x", maxName)} {
		c, err := encodeCursor(l.signer, b, name)
		if err != nil {
			t.Fatalf("encode %q: %v", name, err)
		}
		if len(c) > MaxCursorLen {
			t.Errorf("encode %d-byte name: %d characters", len(name), len(c))
		}
		got, err := decodeCursor(l.signer, b, c)
		if err != nil || got != name {
			t.Errorf("decode(encode(%q)) = %q, %v", name, got, err)
		}
	}
	if _, err := encodeCursor(l.signer, b, strings.Repeat("x", maxName+1)); !errors.Is(err, errNameTooLong) {
		t.Errorf("encode over-long name: err = %v, want errNameTooLong", err)
	}
}
