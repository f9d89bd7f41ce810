package auth_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/auth"
)

// --- An independent implementation of GitLab's routable token algorithm,
// written from its description (GitLab's generator and decoder), sharing
// no code with the package: it is the other side of the property test.

type glToken struct {
	prefix    string
	routing   map[string]int64
	random    []byte
	versioned bool
}

// glB36 writes n in base 36, left-padded with zeros to width.
func glB36(n uint64, width int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var out []byte
	for n > 0 {
		out = append([]byte{digits[n%36]}, out...)
		n /= 36
	}
	for len(out) < width {
		out = append([]byte{'0'}, out...)
	}
	return string(out)
}

// glEncode builds a token: prefix + base64url-nopad(random ‖ payload ‖
// byte(len payload)) + ["." version] "." + len(b64) in base 36 (2) +
// CRC-32 of everything before, base 36 (7).
func glEncode(t glToken) string {
	keys := make([]string, 0, len(t.routing))
	for k := range t.routing {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var payload bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			payload.WriteByte('\n')
		}
		fmt.Fprintf(&payload, "%s:%s", k, glB36(uint64(t.routing[k]), 1))
	}
	raw := append(append(append([]byte{}, t.random...), payload.Bytes()...), byte(payload.Len()))
	enc := base64.URLEncoding.EncodeToString(raw)
	enc = strings.TrimRight(enc, "=")
	s := t.prefix + enc + "."
	if t.versioned {
		s += "01."
	}
	s += glB36(uint64(len(enc)), 2)
	return s + glB36(uint64(crc32.Checksum([]byte(s), crc32.MakeTable(crc32.IEEE))), 7)
}

// glDecode reads a routable token the way GitLab's decoder does: the CRC
// of all but the last 7 characters must be the last 7; the length field
// (the last "." part, 2 characters) says how many characters before the
// first "." after the prefix form the payload.
func glDecode(token, prefix string) (map[string]int64, bool, error) {
	if !strings.HasPrefix(token, prefix) || len(token) < len(prefix)+10 {
		return nil, false, errors.New("short")
	}
	signed, sum := token[:len(token)-7], token[len(token)-7:]
	if glB36(uint64(crc32.ChecksumIEEE([]byte(signed))), 7) != sum {
		return nil, false, errors.New("crc")
	}
	parts := strings.Split(signed[len(prefix):], ".")
	versioned := len(parts) == 3
	if versioned && parts[1] != "01" || len(parts) < 2 || len(parts) > 3 {
		return nil, false, errors.New("shape")
	}
	lenField := parts[len(parts)-1]
	n, err := strconv.ParseInt(lenField, 36, 64)
	if err != nil || int(n) != len(parts[0]) {
		return nil, false, errors.New("length")
	}
	padded := parts[0] + strings.Repeat("=", (4-len(parts[0])%4)%4)
	raw, err := base64.URLEncoding.DecodeString(padded)
	if err != nil || len(raw) < 17 {
		return nil, false, errors.New("base64")
	}
	out := map[string]int64{}
	for _, pair := range strings.Split(string(raw[16:len(raw)-1]), "\n") {
		kv := strings.Split(pair, ":")
		if len(kv) != 2 {
			return nil, false, errors.New("pair")
		}
		v, err := strconv.ParseInt(kv[1], 36, 64)
		if err != nil {
			return nil, false, err
		}
		out[kv[0]] = v
	}
	return out, versioned, nil
}

// --- Helpers for glmcp's own earlier format (before GitLab's formats).

// v0 builds a token in glmcp's first format: glpat-<payload>.<ver>.<crc>,
// the CRC covering everything before the last dot.
func v0(payload, ver string) string {
	body := "glpat-" + payload + "." + ver
	s := strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 36)
	return body + "." + strings.Repeat("0", 7-len(s)) + s
}

func mustFormat(t *testing.T, cfg auth.TokenFormatConfig) *auth.TokenFormat {
	t.Helper()
	f, err := auth.NewTokenFormat(cfg)
	if err != nil {
		t.Fatalf("NewTokenFormat(%+v): %v", cfg, err)
	}
	return f
}

func int64p(n int64) *int64 { return &n }

// Ensure tokens of GitLab's algorithm parse here and ours parse there, for
// random users, organizations, cells and prefixes (both directions).
func TestTokenFormat_propertyAgainstGitLabAlgorithm(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	prefixes := []struct{ prefix, instance, want string }{
		{"", "", "glpat-"},
		{"glpat-", "acme", "acme-glpat-"},
		{"mypat_", "", "mypat_"},
		{"glpat-", "x", "x-glpat-"},
	}
	for i := range 3000 {
		p := prefixes[i%len(prefixes)]
		user := rng.Int64N(1 << 40)
		if i%7 == 0 {
			user = 1 + rng.Int64N(40) // small ids: one-character values
		}
		if user == 0 {
			user = 1
		}
		var cell *int64
		if i%3 == 0 {
			cell = int64p(rng.Int64N(1000))
		}
		org := 1 + rng.Int64N(1<<20)
		f := mustFormat(t, auth.TokenFormatConfig{Prefix: p.prefix, InstancePrefix: p.instance, CellID: cell, OrganizationID: org})
		if f.Prefix() != p.want {
			t.Fatalf("Prefix() = %q, want %q", f.Prefix(), p.want)
		}

		// Ours → theirs.
		random := make([]byte, 16)
		for j := range random {
			random[j] = byte(rng.IntN(256))
		}
		ours, err := f.Generate(bytes.NewReader(random), user)
		if err != nil {
			t.Fatal(err)
		}
		routing, versioned, err := glDecode(ours, p.want)
		if err != nil || !versioned {
			t.Fatalf("GitLab's decoder refuses our %q: versioned %t, %v", ours, versioned, err)
		}
		want := map[string]int64{"o": org, "u": user}
		if cell != nil {
			want["c"] = *cell
		}
		if fmt.Sprint(routing) != fmt.Sprint(want) {
			t.Fatalf("GitLab's decoder reads %v from %q, want %v", routing, ours, want)
		}
		// GitLab's encoder with the same inputs gives the same token.
		if theirs := glEncode(glToken{prefix: p.want, routing: want, random: random, versioned: true}); theirs != ours {
			t.Fatalf("Generate = %q, GitLab's algorithm = %q", ours, theirs)
		}

		// Theirs → ours, both routable formats, extra routing keys.
		theirRouting := map[string]int64{"o": org, "u": user}
		if i%5 == 0 {
			theirRouting["g"] = rng.Int64N(1 << 30)
			theirRouting["p"] = rng.Int64N(1 << 30)
		}
		for _, versioned := range []bool{false, true} {
			theirs := glEncode(glToken{prefix: p.want, routing: theirRouting, random: random, versioned: versioned})
			got, err := f.Parse(theirs)
			if err != nil {
				t.Fatalf("Parse(%q) of GitLab's algorithm: %v", theirs, err)
			}
			wantKind := auth.FormatRoutable
			if versioned {
				wantKind = auth.FormatVersioned
			}
			if got.Kind != wantKind || fmt.Sprint(got.Routing) != fmt.Sprint(theirRouting) || got.Prefix != p.want {
				t.Fatalf("Parse(%q) = %+v, want kind %v routing %v", theirs, got, wantKind, theirRouting)
			}
			if u, ok := got.UserID(); !ok || u != user {
				t.Fatalf("UserID() = %d, %t; want %d", u, ok, user)
			}
		}
	}
}

// Ensure the generated token has the versioned routable shape of GitLab's
// secret-detection rule and differs on every call.
func TestTokenFormat_Generate_shape(t *testing.T) {
	versionedRule := regexp.MustCompile(`^glpat-[0-9a-zA-Z_\-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{2}[0-9a-z]{7}$`)
	f := auth.DefaultTokenFormat()
	a, err := f.Generate(nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Generate(nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two tokens from crypto/rand are equal: %q", a)
	}
	if !versionedRule.MatchString(a) {
		t.Fatalf("%q does not match GitLab's versioned routable rule", a)
	}
	if _, err := f.Generate(bytes.NewReader(make([]byte, 15)), 7); err == nil {
		t.Fatal("Generate with 15 random bytes succeeded")
	}
	if _, err := f.Generate(nil, 0); err == nil {
		t.Fatal("Generate for user 0 succeeded")
	}
}

// Ensure every refusal is decided from the text: checksum, length field,
// version, alphabet, payload; each with an otherwise correct checksum.
func TestTokenFormat_Parse(t *testing.T) {
	f := auth.DefaultTokenFormat()
	random := bytes.Repeat([]byte{0xAB}, 16)
	good := glEncode(glToken{prefix: "glpat-", routing: map[string]int64{"o": 1, "u": 7}, random: random, versioned: true})
	goodRoutable := glEncode(glToken{prefix: "glpat-", routing: map[string]int64{"o": 1, "u": 7}, random: random})
	reCRC := func(s string) string { // recompute the checksum of a tampered token
		signed := s[:len(s)-7]
		return signed + glB36(uint64(crc32.ChecksumIEEE([]byte(signed))), 7)
	}
	b64 := good[len("glpat-"):strings.IndexByte(good, '.')]
	withPayload := func(payload []byte, versioned bool) string {
		raw := append(append(append([]byte{}, random...), payload...), byte(len(payload)))
		enc := base64.RawURLEncoding.EncodeToString(raw)
		s := "glpat-" + enc + "."
		if versioned {
			s += "01."
		}
		return reCRC(s + glB36(uint64(len(enc)), 2) + "0000000")
	}
	flipLast := func(s string) string {
		c := byte('0')
		if s[len(s)-1] == '0' {
			c = '1'
		}
		return s[:len(s)-1] + string(c)
	}
	oldGlmcp := v0(base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{1}, 24)), "01")

	tests := []struct {
		name string
		raw  string
		kind auth.TokenKind // 0: refused
		not  bool           // refused as not a personal access token
	}{
		{"versioned routable", good, auth.FormatVersioned, false},
		{"routable", goodRoutable, auth.FormatRoutable, false},
		{"legacy", "glpat-abcdefghij0123456789", auth.FormatLegacy, false},
		{"legacy with - and _", "glpat-ABCD-fghij_123456789", auth.FormatLegacy, false},
		{"glmcp v0 (minted before GitLab's formats)", oldGlmcp, auth.FormatGlmcpV0, false},
		{"glmcp v0 with a 20-character payload", v0(strings.Repeat("a", 20), "01"), auth.FormatGlmcpV0, false},
		{"glmcp v0 of 255 characters", v0(strings.Repeat("a", 255-17), "01"), auth.FormatGlmcpV0, false},

		{"versioned: wrong checksum", flipLast(good), 0, false},
		{"routable: wrong checksum", flipLast(goodRoutable), 0, false},
		{"payload character changed", strings.Replace(good, b64[:4], "AAAA", 1), 0, false},
		{"wrong length field", reCRC(strings.Replace(good, ".01."+glB36(uint64(len(b64)), 2), ".01."+glB36(uint64(len(b64)+1), 2), 1)), 0, false},
		{"upper-case length field", reCRC(strings.Replace(good, ".01."+glB36(uint64(len(b64)), 2), ".01."+strings.ToUpper(glB36(uint64(len(b64)), 2)), 1)), 0, false},
		{"wrong version 02", reCRC(strings.Replace(good, ".01.", ".02.", 1)), 0, false},
		{"version of one character", reCRC(strings.Replace(good, ".01.", ".1.", 1)), 0, false},
		{"version of three characters", reCRC(strings.Replace(good, ".01.", ".001.", 1)), 0, false},
		{"upper-case checksum", good[:len(good)-7] + strings.ToUpper(good[len(good)-7:]), 0, false},
		{"checksum of 8 characters", good + "0", 0, false},
		{"checksum of 6 characters", good[:len(good)-1], 0, false},
		{"payload with +", reCRC(strings.Replace(good, b64[:1], "+", 1)), 0, false},
		{"payload of 26 characters", reCRC("glpat-" + strings.Repeat("A", 26) + ".01.0q0000000"), 0, false},
		{"payload of 301 characters", reCRC("glpat-" + strings.Repeat("A", 301) + ".01.8d0000000"), 0, false},
		{"routing line without colon", withPayload([]byte("o:1\nu"), true), 0, false},
		{"unknown routing key", withPayload([]byte("o:1\nx:7"), true), 0, false},
		{"repeated routing key", withPayload([]byte("u:1\nu:7"), true), 0, false},
		{"routing value not base 36", withPayload([]byte("o:1\nu:7!"), true), 0, false},
		{"empty routing payload", withPayload(nil, true), 0, false},
		{"routing payload of 160 bytes", withPayload([]byte("o:1\nu:"+strings.Repeat("1", 154)), true), 0, false},
		{"wrong payload length byte", reCRC(strings.Replace(good, b64, base64.RawURLEncoding.EncodeToString(append(append(append([]byte{}, random...), "o:1\nu:7"...), 9)), 1)), 0, false},
		{"glmcp v0: wrong checksum", flipLast(oldGlmcp), 0, false},
		{"glmcp v0: version 02", v0(strings.Repeat("a", 32), "02"), 0, false},
		{"glmcp v0: payload of 19", v0(strings.Repeat("a", 19), "01"), 0, false},
		{"glmcp v0: 256 characters", v0(strings.Repeat("a", 256-17), "01"), 0, false},
		{"legacy 19 characters", "glpat-abcdefghij012345678", 0, false},
		{"legacy 21 characters", "glpat-abcdefghij0123456789a", 0, false},
		{"legacy with !", "glpat-abcdefghij012345678!", 0, false},
		{"legacy with a trailing newline", "glpat-abcdefghij0123456789\n", 0, false},
		{"prefix only", "glpat-", 0, false},
		{"over-long", "glpat-" + strings.Repeat("a", 400), 0, false},

		{"empty", "", 0, true},
		{"no prefix", good[len("glpat-"):], 0, true},
		{"upper-case prefix", "GLPAT-" + good[len("glpat-"):], 0, true},
		{"another prefix", "glpet-" + good[len("glpat-"):], 0, true},
		{"64 hex (an OAuth token)", strings.Repeat("ab", 32), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.Parse(tt.raw)
			switch {
			case tt.kind != 0:
				if err != nil || got.Kind != tt.kind {
					t.Fatalf("Parse(%q) = %+v, %v; want kind %v", tt.raw, got, err, tt.kind)
				}
			case tt.not:
				if !errors.Is(err, auth.ErrNotPersonalToken) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrNotPersonalToken", tt.raw, got, err)
				}
			default:
				if !errors.Is(err, auth.ErrMalformed) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrMalformed", tt.raw, got, err)
				}
			}
		})
	}
}

// Ensure a changed prefix still accepts tokens minted with GitLab's default,
// and refuses the old prefix once it is no longer configured.
func TestTokenFormat_prefixes(t *testing.T) {
	inst := mustFormat(t, auth.TokenFormatConfig{InstancePrefix: "acme"})
	tok, err := inst.Generate(nil, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, "acme-glpat-") {
		t.Fatalf("token %q, want the acme-glpat- prefix", tok)
	}
	def, err := auth.DefaultTokenFormat().Generate(nil, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{tok, def, "glpat-abcdefghij0123456789", "acme-glpat-abcdefghij0123456789"} {
		if _, err := inst.Parse(raw); err != nil {
			t.Errorf("instance format Parse(%q): %v", raw, err)
		}
	}
	if _, err := auth.DefaultTokenFormat().Parse(tok); !errors.Is(err, auth.ErrNotPersonalToken) {
		t.Errorf("default format Parse(%q) = %v, want ErrNotPersonalToken", tok, err)
	}
	for _, cfg := range []auth.TokenFormatConfig{
		{Prefix: "gl.pat-"}, {InstancePrefix: "a b"}, {Prefix: strings.Repeat("p", 21)},
		{InstancePrefix: strings.Repeat("i", 14)}, {CellID: int64p(-1)}, {OrganizationID: -3},
	} {
		if _, err := auth.NewTokenFormat(cfg); err == nil {
			t.Errorf("NewTokenFormat(%+v) succeeded, want an error", cfg)
		}
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
}

func FuzzTokenFormat_Parse(f *testing.F) {
	format := mustFormatF(f)
	f.Add("", []byte{})
	f.Add("glpat-abcdefghij0123456789", bytes.Repeat([]byte{1}, 16))
	f.Add("glpat-.01.0000000", bytes.Repeat([]byte{2}, 30))
	f.Add("acme-glpat-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.01.0wzzzzzzz", []byte("\xff\xfe\xfd"))
	f.Add("glpat-"+strings.Repeat(".", 40), bytes.Repeat([]byte{3}, 100))
	f.Fuzz(func(t *testing.T, raw string, random []byte) {
		if p, err := format.Parse(raw); err == nil {
			if !strings.HasPrefix(raw, p.Prefix) || len(raw) > 333 {
				t.Fatalf("Parse(%q) accepted a token without its prefix or over 333 bytes", raw)
			}
		}
		tok, err := format.Generate(bytes.NewReader(random), 1+int64(len(random)))
		if len(random) < 16 {
			if err == nil {
				t.Fatalf("Generate(%d bytes) = %q, want an error", len(random), tok)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if p, err := format.Parse(tok); err != nil || p.Kind != auth.FormatVersioned {
			t.Fatalf("Parse(Generate()) = %+v, %v", p, err)
		}
	})
}

func mustFormatF(f *testing.F) *auth.TokenFormat {
	tf, err := auth.NewTokenFormat(auth.TokenFormatConfig{InstancePrefix: "acme", CellID: int64p(3)})
	if err != nil {
		f.Fatal(err)
	}
	return tf
}
