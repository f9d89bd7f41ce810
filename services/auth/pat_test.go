package auth_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"hash/crc32"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/auth"
)

// routableRe is the shape GenerateToken promises.
var routableRe = regexp.MustCompile(`^glpat-[A-Za-z0-9_-]{32}\.01\.[0-9a-z]{7}$`)

// seq returns n bytes 0, 1, 2, … (a deterministic token source).
func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// crc is the routable checksum computed independently of the package:
// CRC-32 (IEEE) of body, base 36, zero-padded to 7 characters.
func crc(body string) string {
	s := strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 36)
	return strings.Repeat("0", 7-len(s)) + s
}

// routable builds a routable token around payload with version ver and a
// correct checksum.
func routable(payload, ver string) string {
	body := "glpat-" + payload + "." + ver
	return body + "." + crc(body)
}

func TestGenerateToken_shapeAndChecksum(t *testing.T) {
	tok, err := auth.GenerateToken(nil)
	if err != nil {
		t.Fatalf("GenerateToken(nil): %v", err)
	}
	if !routableRe.MatchString(tok) {
		t.Fatalf("token %q does not match %s", tok, routableRe)
	}
	if !auth.WellFormed(tok) {
		t.Fatalf("WellFormed(%q) = false for a generated token", tok)
	}
	other, err := auth.GenerateToken(nil)
	if err != nil {
		t.Fatalf("GenerateToken(nil): %v", err)
	}
	if other == tok {
		t.Fatalf("two tokens from crypto/rand are equal: %q", tok)
	}
}

func TestGenerateToken_deterministicReader(t *testing.T) {
	src := seq(24)
	payload := base64.RawURLEncoding.EncodeToString(src)
	want := routable(payload, "01")

	for i := range 2 {
		got, err := auth.GenerateToken(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("GenerateToken #%d: %v", i, err)
		}
		if got != want {
			t.Fatalf("GenerateToken #%d = %q, want %q", i, got, want)
		}
	}
	if !routableRe.MatchString(want) || !auth.WellFormed(want) {
		t.Fatalf("expected token %q is not well-formed", want)
	}
}

func TestGenerateToken_shortReader(t *testing.T) {
	tok, err := auth.GenerateToken(bytes.NewReader(seq(23)))
	if err == nil {
		t.Fatalf("GenerateToken(23 bytes) = %q, want an error", tok)
	}
	if tok != "" {
		t.Fatalf("GenerateToken(23 bytes) returned token %q with error", tok)
	}
}

func TestWellFormed(t *testing.T) {
	good, err := auth.GenerateToken(bytes.NewReader(seq(24)))
	if err != nil {
		t.Fatalf("GenerateToken: %v", err)
	}
	payload := strings.TrimSuffix(strings.TrimPrefix(good, "glpat-"), good[len(good)-11:])

	// flip changes one payload character, keeping the old checksum.
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}

	tests := []struct {
		name string
		raw  string
		want bool
	}{
		{"generated routable token", good, true},
		{"legacy 20 characters", "glpat-abcdefghij0123456789", true},
		{"legacy 20 characters with - and _", "glpat-ABCD-fghij_123456789", true},
		{"legacy 19 characters", "glpat-abcdefghij012345678", false},
		{"legacy 21 characters", "glpat-abcdefghij0123456789a", false},
		{"legacy with a non-token character", "glpat-abcdefghij012345678!", false},
		{"legacy with a dot", "glpat-abcdefghij012345678.", false},
		{"legacy with trailing newline", "glpat-abcdefghij0123456789\n", false},
		{"wrong prefix", "glpet-" + good[len("glpat-"):], false},
		{"upper-case prefix", "GLPAT-" + good[len("glpat-"):], false},
		{"no prefix", good[len("glpat-"):], false},
		{"payload character flipped", flip(good, len("glpat-")+5), false},
		{"checksum character flipped", flip(good, len(good)-1), false},
		{"version 02 with a correct checksum", routable(payload, "02"), false},
		{"payload with + and a correct checksum", routable("+"+payload[1:], "01"), false},
		{"payload with a dot and a correct checksum", routable(payload[:10]+"."+payload[11:], "01"), false},
		{"payload of 20 characters", routable(strings.Repeat("a", 20), "01"), true},
		{"payload of 19 characters", routable(strings.Repeat("a", 19), "01"), false},
		{"checksum of 6 characters", good[:len(good)-1], false},
		{"checksum of 8 characters", good + "0", false},
		{"255 characters", routable(strings.Repeat("a", 255-17), "01"), true},
		{"256 characters", routable(strings.Repeat("a", 256-17), "01"), false},
		{"very long legacy-looking token", "glpat-" + strings.Repeat("a", 300), false},
		{"prefix only", "glpat-", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.WellFormed(tt.raw); got != tt.want {
				t.Fatalf("WellFormed(%q) = %v, want %v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestWellFormed_lengthBoundaryFixtures(t *testing.T) {
	// Guard the table above: the long fixtures really are 255 and 256 long.
	if n := len(routable(strings.Repeat("a", 255-17), "01")); n != 255 {
		t.Fatalf("255 fixture has length %d", n)
	}
	if n := len(routable(strings.Repeat("a", 256-17), "01")); n != 256 {
		t.Fatalf("256 fixture has length %d", n)
	}
}

func TestDigest(t *testing.T) {
	const tok = "glpat-abcdefghij0123456789"
	secret32 := "0123456789abcdefghijklmnopqrstuv"
	want := func(token, secretPart string) string {
		sum := sha256.Sum256([]byte(token + secretPart))
		return base64.StdEncoding.EncodeToString(sum[:])
	}
	tests := []struct {
		name   string
		secret string
		want   string
	}{
		{"secret of 32 characters", secret32, want(tok, secret32)},
		{"longer secret uses its first 32 characters", secret32 + "EXTRA-SECRET-TAIL", want(tok, secret32)},
		{"secret of 33 characters uses 32", secret32 + "X", want(tok, secret32)},
		{"secret of 31 characters is used whole", secret32[:31], want(tok, secret32[:31])},
		{"shorter secret is used whole", "short-secret", want(tok, "short-secret")},
		{"empty secret", "", want(tok, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.Digest(tok, tt.secret); got != tt.want {
				t.Fatalf("Digest = %q, want %q", got, tt.want)
			}
		})
	}

	if a, b := auth.Digest(tok, secret32), auth.Digest(tok+"x", secret32); a == b {
		t.Fatalf("different tokens share digest %q", a)
	}
	if a, b := auth.Digest(tok, secret32), auth.Digest(tok, "vutsrqponmlkjihgfedcba9876543210"); a == b {
		t.Fatalf("different secrets give the same digest %q", a)
	}
	if d := auth.Digest(tok, secret32); strings.Contains(d, tok) {
		t.Fatalf("digest %q contains the token", d)
	}
}

func FuzzWellFormed(f *testing.F) {
	f.Add("", []byte{})
	f.Add("glpat-abcdefghij0123456789", seq(24))
	f.Add("glpat-.01.0000000", seq(30))
	f.Add("glpat-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.01.zzzzzzz", []byte("\xff\xfe\xfd"))
	f.Add("glpat-"+strings.Repeat(".", 40), seq(100))
	f.Fuzz(func(t *testing.T, raw string, random []byte) {
		if auth.WellFormed(raw) {
			if !strings.HasPrefix(raw, auth.TokenPrefix) || len(raw) > 255 {
				t.Fatalf("WellFormed(%q) = true for a token without prefix or over 255 bytes", raw)
			}
		}
		tok, err := auth.GenerateToken(bytes.NewReader(random))
		if len(random) < 24 {
			if err == nil {
				t.Fatalf("GenerateToken(%d bytes) = %q, want an error", len(random), tok)
			}
			return
		}
		if err != nil {
			t.Fatalf("GenerateToken(%d bytes): %v", len(random), err)
		}
		if !routableRe.MatchString(tok) || !auth.WellFormed(tok) {
			t.Fatalf("generated token %q is not well-formed", tok)
		}
	})
}
