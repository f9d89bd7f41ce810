package catalog

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"sync"

	"gitlab.com/glmcp/glmcp/models"
)

// MaxCursorLen is the longest cursor accepted, in characters.
const MaxCursorLen = 512

// Cursor layout, version 1, before base64url (no padding):
//
//	[0]       version (cursorVersion)
//	[1:5]     verb tag: SHA-256 of the verb, truncated
//	[5:13]    scope tag: SHA-256 of filter fingerprint, edition, read-only
//	[13:n-16] name of the last tool returned (the keyset position)
//	[n-16:n]  HMAC-SHA256 of bytes [0:n-16], truncated to 128 bits
const (
	cursorVersion = 1
	verbTagLen    = 4
	scopeTagLen   = 8
	macLen        = 16
	headerLen     = 1 + verbTagLen + scopeTagLen
	minCursorLen  = headerLen + macLen
	// maxCursorBytes is the payload size whose encoding is MaxCursorLen.
	maxCursorBytes = MaxCursorLen * 3 / 4
)

var cursorEncoding = base64.RawURLEncoding.Strict()

// badCursor returns a cursor decoding failure: "invalid cursor: <reason>",
// wrapping models.ErrInvalidInput.
func badCursor(format string, args ...any) error {
	return fmt.Errorf("invalid cursor: %s: %w", fmt.Sprintf(format, args...), models.ErrInvalidInput)
}

// errNameTooLong is returned when a tool name cannot fit in a cursor.
var errNameTooLong = errors.New("tool name too long to fit in a cursor")

// binding is what a cursor is bound to besides the secret.
type binding struct {
	verb [verbTagLen]byte
	// scope covers the filter fingerprint, edition and read-only state.
	scope [scopeTagLen]byte
}

func newBinding(q Query) binding {
	var b binding
	vs := sha256.Sum256([]byte("glmcp-cursor-verb\x00" + q.Verb))
	copy(b.verb[:], vs[:])
	ro := "rw"
	if q.ReadOnly {
		ro = "ro"
	}
	ss := sha256.Sum256([]byte("glmcp-cursor-scope\x00" + q.Filter.Fingerprint() + "\x00" + string(q.Edition) + "\x00" + ro))
	copy(b.scope[:], ss[:])
	return b
}

// encodeCursor mints a cursor resuming after the tool named last.
func encodeCursor(s *signer, b binding, last string) (string, error) {
	n := headerLen + len(last) + macLen
	if n > maxCursorBytes {
		return "", fmt.Errorf("encode cursor after %d-byte name: %w", len(last), errNameTooLong)
	}
	buf := make([]byte, 0, n)
	buf = append(buf, cursorVersion)
	buf = append(buf, b.verb[:]...)
	buf = append(buf, b.scope[:]...)
	buf = append(buf, last...)
	buf = s.sign(buf, buf)
	return cursorEncoding.EncodeToString(buf), nil
}

// decodeCursor checks a cursor against the signer's key and the expected binding and
// returns the name it resumes after. Every failure wraps
// models.ErrInvalidInput with a message starting "invalid cursor".
func decodeCursor(s *signer, want binding, cursor string) (string, error) {
	if len(cursor) > MaxCursorLen {
		return "", badCursor("longer than %d characters", MaxCursorLen)
	}
	// The decoder silently skips CR and LF; refuse anything off the
	// alphabet so one cursor has one spelling.
	for i := 0; i < len(cursor); i++ {
		if !base64URLByte(cursor[i]) {
			return "", badCursor("not base64url")
		}
	}
	raw, err := cursorEncoding.DecodeString(cursor)
	if err != nil {
		return "", badCursor("not base64url")
	}
	if len(raw) < minCursorLen {
		return "", badCursor("truncated")
	}
	if raw[0] != cursorVersion {
		return "", badCursor("unsupported version %d", raw[0])
	}
	body, mac := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	var tag [macLen]byte
	if !hmac.Equal(mac, s.sign(tag[:0], body)) {
		return "", badCursor("signature mismatch")
	}
	if !hmac.Equal(body[1:1+verbTagLen], want.verb[:]) {
		return "", badCursor("issued for a different method")
	}
	if !hmac.Equal(body[1+verbTagLen:headerLen], want.scope[:]) {
		return "", badCursor("issued for a different listing (filter headers, edition or token scope changed)")
	}
	last := string(body[headerLen:])
	if last == "" {
		return "", badCursor("empty position")
	}
	return last, nil
}

// signer computes truncated HMAC-SHA256 tags with one key. Keyed HMAC
// states are pooled: building one costs several allocations, and every page
// signs or verifies a cursor.
type signer struct {
	pool sync.Pool
}

func newSigner(key []byte) *signer {
	s := &signer{}
	s.pool.New = func() any { return hmac.New(sha256.New, key) }
	return s
}

// sign appends the truncated HMAC of msg to dst.
func (s *signer) sign(dst, msg []byte) []byte {
	m := s.pool.Get().(hash.Hash)
	m.Reset()
	m.Write(msg)
	var sum [sha256.Size]byte
	out := append(dst, m.Sum(sum[:0])[:macLen]...)
	s.pool.Put(m)
	return out
}

// deriveKey separates the cursor key from other uses of the instance secret.
func deriveKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("glmcp catalog cursor key v1"))
	return m.Sum(nil)
}

func base64URLByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}
