package catalog

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

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

// resign re-encodes raw cursor bytes with a valid signature, to reach the
// checks behind the MAC.
func resign(l *Lister, raw []byte) string {
	body := raw[:len(raw)-macLen]
	return cursorEncoding.EncodeToString(l.signer.sign(append([]byte(nil), body...), body))
}

func TestLister_Page_badCursor(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 2)
	base := Query{Edition: models.EditionEE, Verb: VerbToolsList, Filter: mustFilter(t, "get_issue", "ci", "gl_")}
	good := mintCursor(t, l, base)
	raw, err := cursorEncoding.DecodeString(good)
	if err != nil {
		t.Fatalf("decode minted cursor: %v", err)
	}
	flipped := []byte(good)
	flipped[len(flipped)/2] ^= 0x01 // stays in the alphabet: letters and digits differ in bit 0 only
	otherVersion := append([]byte(nil), raw...)
	otherVersion[0] = 2
	emptyName := append(append([]byte(nil), raw[:headerLen]...), make([]byte, macLen)...)
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
		{desc: "standard base64 padding", q: with(func(q *Query) { q.Cursor = good + "==" }), wantInMsg: "not base64url"},
		{desc: "embedded newline", q: with(func(q *Query) { q.Cursor = good[:10] + "\n" + good[10:] }), wantInMsg: "not base64url"},
		{desc: "short garbage", q: with(func(q *Query) { q.Cursor = "abc" }), wantInMsg: "truncated"},
		{desc: "flipped character", q: with(func(q *Query) { q.Cursor = string(flipped) }), wantInMsg: "invalid cursor"},
		{desc: "truncated by one character", q: with(func(q *Query) { q.Cursor = good[:len(good)-1] }), wantInMsg: "invalid cursor"},
		{desc: "truncated by one byte", q: with(func(q *Query) { q.Cursor = cursorEncoding.EncodeToString(raw[:len(raw)-1]) }), wantInMsg: "signature mismatch"},
		{desc: "truncated to the header", q: with(func(q *Query) { q.Cursor = cursorEncoding.EncodeToString(raw[:headerLen]) }), wantInMsg: "truncated"},
		{desc: "over-long", q: with(func(q *Query) { q.Cursor = strings.Repeat("A", MaxCursorLen+1) }), wantInMsg: "longer than 512"},
		{desc: "other version", q: with(func(q *Query) { q.Cursor = resign(l, otherVersion) }), wantInMsg: "unsupported version 2"},
		{desc: "empty position", q: with(func(q *Query) { q.Cursor = resign(l, emptyName) }), wantInMsg: "empty position"},
		{desc: "other verb", q: with(func(q *Query) { q.Verb = "resources/list" }), wantInMsg: "different method"},
		{desc: "other tools header", q: with(func(q *Query) { q.Filter = mustFilter(t, "get_issue,search", "ci", "gl_") }), wantInMsg: "different listing"},
		{desc: "other toolsets header", q: with(func(q *Query) { q.Filter = mustFilter(t, "get_issue", "", "gl_") }), wantInMsg: "different listing"},
		{desc: "other prefix", q: with(func(q *Query) { q.Filter = mustFilter(t, "get_issue", "ci", "") }), wantInMsg: "different listing"},
		{desc: "other edition", q: with(func(q *Query) { q.Edition = models.EditionCE }), wantInMsg: "different listing"},
		{desc: "other read-only state", q: with(func(q *Query) { q.ReadOnly = true }), wantInMsg: "different listing"},
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

// TestDecodeCursor_everyFlippedBit flips each bit of a minted cursor's
// bytes: no variant is accepted.
func TestDecodeCursor_everyFlippedBit(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 2)
	q := Query{Edition: models.EditionCE, Verb: VerbToolsList}
	raw, err := cursorEncoding.DecodeString(mintCursor(t, l, q))
	if err != nil {
		t.Fatal(err)
	}
	want := newBinding(q)
	for i := range raw {
		for bit := range 8 {
			tampered := append([]byte(nil), raw...)
			tampered[i] ^= 1 << bit
			_, err := decodeCursor(l.signer, want, cursorEncoding.EncodeToString(tampered))
			if !errors.Is(err, models.ErrInvalidInput) {
				t.Errorf("byte %d bit %d flipped: err = %v, want ErrInvalidInput", i, bit, err)
			}
		}
	}
}

// TestDecodeCursor_nonCanonicalBase64 checks that a second spelling of the
// same bytes (different unused trailing bits) is refused.
func TestDecodeCursor_nonCanonicalBase64(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 2)
	q := Query{Edition: models.EditionCE, Verb: VerbToolsList}
	good := mintCursor(t, l, q)
	if len(good)%4 == 0 {
		t.Skip("encoding has no unused trailing bits")
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, good[len(good)-1])
	variant := good[:len(good)-1] + string(alphabet[last^1])
	if lax, err := base64.RawURLEncoding.DecodeString(variant); err != nil || string(lax) != string(mustDecode(t, good)) {
		t.Skip("flipping the last character changes the bytes; nothing to test")
	}
	if _, err := decodeCursor(l.signer, newBinding(q), variant); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("non-canonical spelling accepted: err = %v", err)
	}
}

func mustDecode(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := cursorEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestDecodeCursor_roundTrip(t *testing.T) {
	t.Parallel()
	l := mustLister(t, 2)
	q := Query{Edition: models.EditionEE, ReadOnly: true, Verb: VerbToolsList}
	b := newBinding(q)
	for _, name := range []string{"a", "get_issue", "名前", strings.Repeat("x", maxCursorBytes-minCursorLen)} {
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
	if _, err := encodeCursor(l.signer, b, strings.Repeat("x", maxCursorBytes-minCursorLen+1)); !errors.Is(err, errNameTooLong) {
		t.Errorf("encode over-long name: err = %v, want errNameTooLong", err)
	}
}

// FuzzDecodeCursor feeds arbitrary strings to the decoder: it never panics,
// and anything it refuses is invalid input.
func FuzzDecodeCursor(f *testing.F) {
	l := mustLister(f, 2)
	q := Query{Edition: models.EditionCE, Verb: VerbToolsList}
	b := newBinding(q)
	good := mintCursor(f, l, q)
	for _, seed := range []string{good, good[:len(good)-1], "", "A", "AQ", "____", strings.Repeat("A", 600), "not base64!"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		name, err := decodeCursor(l.signer, b, cursor)
		if err != nil {
			if !errors.Is(err, models.ErrInvalidInput) {
				t.Fatalf("decodeCursor(%q): err = %v, want ErrInvalidInput", cursor, err)
			}
			return
		}
		if cursor != good {
			t.Fatalf("decodeCursor accepted forged cursor %q (name %q)", cursor, name)
		}
		if _, err := pageTools(l, fixtureCatalog(), Query{Edition: q.Edition, Verb: q.Verb, Cursor: cursor}); err != nil {
			t.Fatalf("Page with accepted cursor: %v", err)
		}
	})
}
