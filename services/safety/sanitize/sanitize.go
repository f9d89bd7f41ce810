// Package sanitize removes what a reader of user-written text cannot see
// but a model reads: Unicode tag characters (U+E0000–U+E007F), zero-width
// characters, bidi overrides and isolates, and HTML comments (hidden by
// GitLab's rendered Markdown). It counts what it removed, so a tool result
// can say so (doc/security.md, "Sanitised text").
//
// Repository content (code) is never changed: [Scan] and the keep function
// of [JSON] count its hidden characters instead, so the result can flag
// them.
//
// It works on bytes as they are: plain text, or the string values of a
// JSON document written by encoding/json (the characters raw or as \u
// escapes; '<' raw, as glmcp's tools write it). A document holding none of
// them is returned as it is, without a copy.
package sanitize

import (
	"bytes"
	"unicode/utf8"
)

// Counts are the characters and comments found, by kind.
type Counts struct {
	TagCharacters       int `json:"tagCharacters"`
	ZeroWidthCharacters int `json:"zeroWidthCharacters"`
	BidiControls        int `json:"bidiControls"`
	HTMLComments        int `json:"htmlComments"`
}

// Total is the sum of every kind.
func (c Counts) Total() int {
	return c.TagCharacters + c.ZeroWidthCharacters + c.BidiControls + c.HTMLComments
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.TagCharacters += o.TagCharacters
	c.ZeroWidthCharacters += o.ZeroWidthCharacters
	c.BidiControls += o.BidiControls
	c.HTMLComments += o.HTMLComments
}

type kind uint8

const (
	none kind = iota
	tag
	zeroWidth
	bidi
)

// classify says which kind of hidden character r is (none: a visible one,
// or one this package leaves alone).
func classify(r rune) kind {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return tag
	case r == 0x200B, r == 0x200C, r == 0x200D, // zero width space, non-joiner, joiner
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r == 0xFEFF:                // zero width no-break space (BOM)
		return zeroWidth
	case r >= 0x202A && r <= 0x202E, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return bidi
	}
	return none
}

func (c *Counts) count(k kind) {
	switch k {
	case tag:
		c.TagCharacters++
	case zeroWidth:
		c.ZeroWidthCharacters++
	case bidi:
		c.BidiControls++
	}
}

var (
	commentOpen  = []byte("<!--")
	commentClose = []byte("-->")
	unicodeEsc   = []byte(`\u`)
)

// suspicious reports whether b may hold anything this package removes. It
// is exact about nothing but never misses: false means b is clean. It uses
// the fast byte searches only, so clean text costs a few passes of memchr.
func suspicious(b []byte) bool {
	if bytes.Contains(b, commentOpen) || bytes.IndexByte(b, 0xF3) >= 0 || bytes.IndexByte(b, 0xEF) >= 0 ||
		bytes.Contains(b, unicodeEsc) {
		return true
	}
	// U+2000–U+2FFF start with 0xE2, which prose holds often (’ “ — …):
	// look at the two bytes after each.
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], 0xE2)
		if j < 0 {
			return false
		}
		i += j
		if i+2 < len(b) {
			switch c := b[i+2]; b[i+1] {
			case 0x80: // U+2000–U+203F: 200B–200D, 202A–202E
				if c >= 0x8B && c <= 0x8D || c >= 0xAA && c <= 0xAE {
					return true
				}
			case 0x81: // U+2040–U+207F: 2060–2064, 2066–2069
				if c >= 0xA0 && c <= 0xA4 || c >= 0xA6 && c <= 0xA9 {
					return true
				}
			}
		}
		i++
	}
}

// String returns s without hidden characters and HTML comments, and what
// was removed.
func String(s string) (string, Counts) {
	if !suspicious([]byte(s)) {
		return s, Counts{}
	}
	var c Counts
	out := clean(make([]byte, 0, len(s)), []byte(s), false, false, &c)
	return string(out), c
}

// Scan counts the hidden characters of b (HTML comments are not counted:
// code holds them as a matter of course) without changing it.
func Scan(b []byte) Counts {
	var c Counts
	if suspicious(b) {
		clean(nil, b, false, true, &c)
	}
	return c
}

// clean appends seg to dst without its hidden characters and, unless keep,
// its HTML comments (an unclosed comment runs to the end of seg, as a
// Markdown renderer hides it), counting each into c. escaped: seg is the
// inside of a JSON string, whose \u escapes name characters too. keep:
// count the hidden characters only, appending nothing (dst is returned as
// it is).
func clean(dst, seg []byte, escaped, keep bool, c *Counts) []byte {
	for i := 0; i < len(seg); {
		b := seg[i]
		switch {
		case (b == '<' || b == '\\' && escaped) && !keep && opensComment(seg[i:], escaped) > 0:
			c.HTMLComments++
			n := opensComment(seg[i:], escaped)
			end, m := closeComment(seg[i+n:], escaped)
			if end < 0 {
				return dst
			}
			i += n + end + m
		case b == '\\' && escaped && i+1 < len(seg):
			n := 2
			if seg[i+1] == 'u' {
				var r rune
				r, n = unescape(seg[i:])
				if k := classify(r); k != none {
					c.count(k)
					i += n
					continue
				}
			}
			if !keep {
				dst = append(dst, seg[i:i+n]...)
			}
			i += n
		case b >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(seg[i:])
			if k := classify(r); k != none {
				c.count(k)
			} else if !keep {
				dst = append(dst, seg[i:i+size]...)
			}
			i += size
		default:
			if !keep {
				dst = append(dst, b)
			}
			i++
		}
	}
	return dst
}

// opensComment returns the length of the "<!--" at the start of s (in a
// JSON string also written "\u003c!--", as encoding/json escapes HTML), 0
// when there is none.
func opensComment(s []byte, escaped bool) int {
	if bytes.HasPrefix(s, commentOpen) {
		return len(commentOpen)
	}
	if escaped && len(s) >= 9 && s[1] == 'u' && bytes.HasPrefix(s[6:], []byte("!--")) {
		if r, ok := hex4(s); ok && r == '<' {
			return 9
		}
	}
	return 0
}

// closeComment returns where the first "-->" (or "--\u003e" in a JSON
// string) in s starts and its length; -1 when there is none.
func closeComment(s []byte, escaped bool) (int, int) {
	plain := bytes.Index(s, commentClose)
	if !escaped {
		return plain, len(commentClose)
	}
	for from := 0; ; {
		j := bytes.Index(s[from:], []byte(`--\u`))
		if j < 0 {
			return plain, len(commentClose)
		}
		j += from
		if plain >= 0 && plain < j {
			return plain, len(commentClose)
		}
		if r, ok := hex4(s[j+2:]); ok && r == '>' {
			return j, 8
		}
		from = j + 1
	}
}

// unescape reads the \uXXXX escape (or surrogate pair of two) at the
// start of s and returns the character and the escape's length; a
// malformed escape is returned as utf8.RuneError of length 2.
func unescape(s []byte) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return utf8.RuneError, 2
	}
	if r >= 0xD800 && r < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if lo, ok := hex4(s[6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
		}
	}
	return r, 6
}

// hex4 decodes the four hex digits after `\u` at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 6 {
		return 0, false
	}
	var r rune
	for _, h := range s[2:6] {
		r <<= 4
		switch {
		case h >= '0' && h <= '9':
			r |= rune(h - '0')
		case h >= 'a' && h <= 'f':
			r |= rune(h-'a') + 10
		case h >= 'A' && h <= 'F':
			r |= rune(h-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
