package tools

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func newTestSealer(t *testing.T, secret string, now *time.Time) *stateSealer {
	t.Helper()
	s, err := newStateSealer([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return *now }
	return s
}

// Ensure a sealed requestState opens only for the user, tool and
// arguments it was issued for, unaltered and before it expires.
func TestStateSealer(t *testing.T) {
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	s := newTestSealer(t, "secret-one-0123456789abcdefghijklmnop", &now)
	args := json.RawMessage(`{"b":1,"a":"x"}`)
	sealed, err := s.seal(7, "tool", args, `{"round":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "round") {
		t.Errorf("sealed state shows its plaintext: %s", sealed)
	}
	if got, err := s.open(sealed, 7, "tool", json.RawMessage(`{ "a":"x", "b":1 }`)); err != nil || got != `{"round":1}` {
		t.Fatalf("open = %q, %v; want the state back (key order and spacing do not matter)", got, err)
	}
	again, _ := s.seal(7, "tool", args, `{"round":1}`)
	if again == sealed {
		t.Error("two seals of the same state are equal: the nonce is not fresh")
	}

	raw, _ := base64.RawURLEncoding.DecodeString(sealed)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-1] ^= 1
	other := newTestSealer(t, "secret-two-0123456789abcdefghijklmnop", &now)
	bad := map[string]func() (string, error){
		"tampered suffix": func() (string, error) { return s.open(sealed+"-TAMPERED", 7, "tool", args) },
		"flipped bit": func() (string, error) {
			return s.open(base64.RawURLEncoding.EncodeToString(flipped), 7, "tool", args)
		},
		"not base64":     func() (string, error) { return s.open("!!!", 7, "tool", args) },
		"too short":      func() (string, error) { return s.open("AAAA", 7, "tool", args) },
		"too long":       func() (string, error) { return s.open(strings.Repeat("A", maxSealedState+1), 7, "tool", args) },
		"other user":     func() (string, error) { return s.open(sealed, 8, "tool", args) },
		"other tool":     func() (string, error) { return s.open(sealed, 7, "other", args) },
		"other args":     func() (string, error) { return s.open(sealed, 7, "tool", json.RawMessage(`{"a":"y","b":1}`)) },
		"other instance": func() (string, error) { return other.open(sealed, 7, "tool", args) },
		"expired": func() (string, error) {
			later := now.Add(inputStateTTL + time.Second)
			return newTestSealerAt(s, later).open(sealed, 7, "tool", args)
		},
	}
	for name, open := range bad {
		t.Run(name, func(t *testing.T) {
			if got, err := open(); !errors.Is(err, errBadState) || got != "" {
				t.Fatalf("open = %q, %v; want errBadState", got, err)
			}
		})
	}
	t.Run("same secret, other instance", func(t *testing.T) {
		peer := newTestSealer(t, "secret-one-0123456789abcdefghijklmnop", &now)
		if got, err := peer.open(sealed, 7, "tool", args); err != nil || got != `{"round":1}` {
			t.Fatalf("open = %q, %v", got, err)
		}
	})
}

// newTestSealerAt is s with its clock at t.
func newTestSealerAt(s *stateSealer, t time.Time) *stateSealer {
	return &stateSealer{aead: s.aead, now: func() time.Time { return t }}
}

// Ensure empty and null arguments are the same call as {}.
func TestArgsDigest(t *testing.T) {
	want := argsDigest(json.RawMessage(`{}`))
	for _, a := range []string{"", "null", " { } "} {
		if got := argsDigest(json.RawMessage(a)); got != want {
			t.Errorf("argsDigest(%q) = %s, want %s", a, got, want)
		}
	}
	if argsDigest(json.RawMessage(`{"n":1.0}`)) == argsDigest(json.RawMessage(`{"n":1}`)) {
		t.Error("1.0 and 1 digest alike: numbers must keep their text")
	}
}
