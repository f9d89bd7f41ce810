package cursor

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

var (
	secret = []byte("a test secret of thirty-two bytes")
	bind   = Binding{Verb: "list_commits", User: 7, List: `{"ref_name":"main"}`}
)

func mustSeal(tb testing.TB, s *Signer, b Binding, pos string) string {
	tb.Helper()
	c, err := s.Seal(b, []byte(pos))
	if err != nil {
		tb.Fatalf("Seal: %v", err)
	}
	return c
}

// reason returns the Reason of a refusal, failing on anything else.
func reason(tb testing.TB, err error) Reason {
	tb.Helper()
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("err = %v, want *Error", err)
	}
	if !strings.HasPrefix(e.Error(), "invalid cursor: ") {
		tb.Errorf("message %q does not start with \"invalid cursor: \"", e.Error())
	}
	return e.Reason
}

func TestSigner_roundTrip(t *testing.T) {
	t.Parallel()
	s := New(secret, 512)
	for _, pos := range []string{"", "a", "get_issue", "名前", "a/b/c.go", strings.Repeat("x", s.MaxPosition())} {
		c := mustSeal(t, s, bind, pos)
		if len(c) > s.MaxLen() {
			t.Errorf("%d-byte position: %d-character cursor, limit %d", len(pos), len(c), s.MaxLen())
		}
		got, err := s.Open(bind, c)
		if err != nil || string(got) != pos {
			t.Errorf("Open(Seal(%q)) = %q, %v", pos, got, err)
		}
	}
	if _, err := s.Seal(bind, make([]byte, s.MaxPosition()+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("Seal of an over-long position: err = %v, want ErrTooLong", err)
	}
	for _, n := range []int64{0, 1, 42, 1 << 62, -1} {
		got, err := s.OpenInt(bind, s.SealInt(bind, n))
		if err != nil || got != n {
			t.Errorf("OpenInt(SealInt(%d)) = %d, %v", n, got, err)
		}
	}
	// Another signer over the same secret (another service) opens it too.
	if _, err := New(secret, 512).Open(bind, mustSeal(t, s, bind, "x")); err != nil {
		t.Errorf("same secret, other signer: %v", err)
	}
}

func TestSigner_Open_refusals(t *testing.T) {
	t.Parallel()
	s := New(secret, 512)
	good := mustSeal(t, s, bind, "position")
	raw, err := encoding.DecodeString(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := []byte(good)
	flipped[len(flipped)/2] ^= 0x01 // stays in the alphabet
	otherVersion := append([]byte(nil), raw...)
	otherVersion[0] = 1
	with := func(edit func(*Binding)) Binding {
		b := bind
		edit(&b)
		return b
	}
	tests := []struct {
		desc   string
		signer *Signer
		b      Binding
		cursor string
		want   Reason
		inMsg  string
	}{
		{desc: "garbage", cursor: "not a cursor!", want: Malformed, inMsg: "not base64url"},
		{desc: "padding", cursor: good + "==", want: Malformed, inMsg: "not base64url"},
		{desc: "embedded newline", cursor: good[:10] + "\n" + good[10:], want: Malformed, inMsg: "not base64url"},
		{desc: "empty", cursor: "", want: Malformed, inMsg: "truncated"},
		{desc: "short", cursor: "abc", want: Malformed, inMsg: "truncated"},
		{desc: "over-long", cursor: strings.Repeat("A", 513), want: Malformed, inMsg: "longer than 512"},
		{desc: "other version", cursor: encoding.EncodeToString(otherVersion), want: Malformed, inMsg: "unsupported version 1"},
		{desc: "flipped character", cursor: string(flipped), want: Forged},
		{desc: "truncated by one byte", cursor: encoding.EncodeToString(raw[:len(raw)-1]), want: Forged, inMsg: "signature mismatch"},
		{desc: "other secret", signer: New([]byte("another secret, also long enough"), 512), cursor: good, want: Forged, inMsg: "signature mismatch"},
		{desc: "other verb", b: with(func(b *Binding) { b.Verb = "list_repository_tree" }), cursor: good, want: OtherVerb, inMsg: "different method or tool"},
		{desc: "other user", b: with(func(b *Binding) { b.User = 8 }), cursor: good, want: OtherUser, inMsg: "another user"},
		{desc: "no user", b: with(func(b *Binding) { b.User = 0 }), cursor: good, want: OtherUser, inMsg: "another user"},
		{desc: "other list", b: with(func(b *Binding) { b.List = `{"ref_name":"dev"}` }), cursor: good, want: OtherList, inMsg: "different list"},
		{desc: "other list, prefix of this one", b: with(func(b *Binding) { b.List = bind.List[:5] }), cursor: good, want: OtherList},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			sg, b := s, bind
			if tc.signer != nil {
				sg = tc.signer
			}
			if tc.b != (Binding{}) {
				b = tc.b
			}
			pos, err := sg.Open(b, tc.cursor)
			if err == nil {
				t.Fatalf("Open = %q, want a refusal", pos)
			}
			if got := reason(t, err); got != tc.want {
				t.Errorf("reason = %d (%v), want %d", got, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.inMsg) {
				t.Errorf("message %q, want it to say %q", err, tc.inMsg)
			}
		})
	}
	if _, err := s.OpenInt(bind, mustSeal(t, s, bind, "name")); reason(t, err) != Malformed {
		t.Errorf("OpenInt of a string position: %v, want Malformed", err)
	}
}

// TestSigner_Open_bindingBytesDoNotShift checks that verb and list cannot
// trade bytes: ("ab", "c") and ("a", "bc") are different bindings.
func TestSigner_Open_bindingBytesDoNotShift(t *testing.T) {
	t.Parallel()
	s := New(secret, 512)
	c := mustSeal(t, s, Binding{Verb: "ab", List: "c"}, "p")
	if _, err := s.Open(Binding{Verb: "a", List: "bc"}, c); err == nil {
		t.Fatal("cursor opened under a binding that only shifts bytes between verb and list")
	}
}

// TestSigner_Open_everyFlippedBit flips each bit of a minted cursor's
// bytes: no variant is accepted.
func TestSigner_Open_everyFlippedBit(t *testing.T) {
	t.Parallel()
	s := New(secret, 512)
	raw, err := encoding.DecodeString(mustSeal(t, s, bind, "position"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		for bit := range 8 {
			tampered := append([]byte(nil), raw...)
			tampered[i] ^= 1 << bit
			if pos, err := s.Open(bind, encoding.EncodeToString(tampered)); err == nil {
				t.Errorf("byte %d bit %d flipped: accepted (%q)", i, bit, pos)
			}
		}
	}
}

// TestSigner_Open_nonCanonicalBase64 checks that a second spelling of the
// same bytes (other unused trailing bits) is refused.
func TestSigner_Open_nonCanonicalBase64(t *testing.T) {
	t.Parallel()
	s := New(secret, 512)
	for _, pos := range []string{"a", "ab", "abc"} {
		good := mustSeal(t, s, bind, pos)
		if len(good)%4 == 0 {
			continue // no unused trailing bits
		}
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, good[len(good)-1])
		variant := good[:len(good)-1] + string(alphabet[last^1])
		lax, err := base64.RawURLEncoding.DecodeString(variant)
		want, _ := encoding.DecodeString(good)
		if err != nil || string(lax) != string(want) {
			continue // the flip changed the bytes: covered by everyFlippedBit
		}
		if _, err := s.Open(bind, variant); err == nil {
			t.Errorf("non-canonical spelling of a %d-byte position accepted", len(pos))
		}
	}
}

// TestNew_emptySecret: an empty secret still signs, with a key of its own.
func TestNew_emptySecret(t *testing.T) {
	t.Parallel()
	a, b := New(nil, 512), New(nil, 512)
	c := mustSeal(t, a, bind, "x")
	if _, err := a.Open(bind, c); err != nil {
		t.Errorf("own cursor: %v", err)
	}
	if _, err := b.Open(bind, c); err == nil {
		t.Error("two signers without a secret share a key")
	}
}

// FuzzOpen feeds arbitrary strings to Open: it never panics, refuses with
// an *Error, and accepts only the cursor it minted.
func FuzzOpen(f *testing.F) {
	s := New(secret, 512)
	good := mustSeal(f, s, bind, "position")
	other := mustSeal(f, s, Binding{Verb: "tools/list", User: 7}, "position")
	for _, seed := range []string{good, other, good[:len(good)-1], "", "A", "AQ", "____", strings.Repeat("A", 600), "not base64!"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, c string) {
		pos, err := s.Open(bind, c)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason < Malformed || e.Reason > OtherList {
				t.Fatalf("Open(%q): err = %v, want an *Error with a reason", c, err)
			}
			return
		}
		if c != good || string(pos) != "position" {
			t.Fatalf("Open accepted %q (position %q)", c, pos)
		}
	})
}
