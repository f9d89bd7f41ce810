package mcpheader_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/internal/mcpheader"
)

const (
	sentinelPrefix = mcpheader.SentinelPrefix
	sentinelSuffix = mcpheader.SentinelSuffix
)

// FuzzDecodeSentinel: DecodeSentinel never panics on any header value, and
// its three results are consistent with each other and with the input.
func FuzzDecodeSentinel(f *testing.F) {
	for _, s := range []string{
		"", "get_issue", "=?base64??=", "=?base64?", "?=", "=?base64?=",
		"=?base64?Z2V0X2lzc3Vl?=", "=?base64?Z2V0X2lzc3Vl?", "=?BASE64?Z2V0X2lzc3Vl?=",
		"=?base64?!!!?=", "=?base64?//79?=", "=?base64?8J+Ygg==?=", "=?base64?Zm9v?=?=",
		" =?base64?Zm9v?= ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		dec, ok, bad := mcpheader.DecodeSentinel(v)
		framed := len(v) >= len(sentinelPrefix)+len(sentinelSuffix) &&
			strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix)
		if ok != framed {
			t.Fatalf("DecodeSentinel(%q): ok = %v, want %v", v, ok, framed)
		}
		switch {
		case !ok:
			if bad || dec != "" {
				t.Fatalf("DecodeSentinel(%q) = %q, bad %v for a plain value", v, dec, bad)
			}
		case bad:
			if dec != "" {
				t.Fatalf("DecodeSentinel(%q) = %q with bad set", v, dec)
			}
			payload := v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)]
			if b, err := base64.StdEncoding.Strict().DecodeString(payload); err == nil && utf8.Valid(b) {
				t.Fatalf("DecodeSentinel(%q): bad, but the payload is valid base64 of UTF-8 %q", v, b)
			}
		default:
			if !utf8.ValidString(dec) {
				t.Fatalf("DecodeSentinel(%q) = %q: not UTF-8", v, dec)
			}
			// Canonical standard base64 only: non-zero trailing bits are
			// refused, so one header value has one spelling.
			payload := v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)]
			if b, err := base64.StdEncoding.Strict().DecodeString(payload); err != nil || string(b) != dec {
				t.Fatalf("DecodeSentinel(%q) = %q, want the standard base64 decoding %q (%v)", v, dec, b, err)
			}
		}
	})
}

// FuzzDecodeSentinel_roundTrip: the sentinel encoding of any valid UTF-8
// string decodes back to it.
func FuzzDecodeSentinel_roundTrip(f *testing.F) {
	for _, s := range []string{"", "get_issue", "héllo wörld", "日本語", "😀 tool", "a?=b", "=?base64?x?=", "\x00\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		v := sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelSuffix
		dec, ok, bad := mcpheader.DecodeSentinel(v)
		if !ok || bad || dec != s {
			t.Fatalf("DecodeSentinel(%q) = %q, ok %v, bad %v; want %q, true, false", v, dec, ok, bad, s)
		}
	})
}
