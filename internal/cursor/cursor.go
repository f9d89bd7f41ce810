// Package cursor mints and opens every pagination cursor glmcp hands out:
// tools/list (services/catalog), resources/list (services/resources) and
// the tools that page with first/after (services/tools/gitlab).
//
// A cursor is opaque to clients, self-contained (the server keeps no
// state) and tamper-evident: an HMAC-SHA256 under a key derived from the
// instance secret. It is bound to a [Binding]: the verb that minted it (the
// protocol method or the tool's name), the user it was issued to and the
// list it pages (the filters that chose the items). Opening a cursor under
// any other binding, or one that was forged, altered or truncated, fails
// with an [*Error] saying which of those it was.
//
// Layout, version 2, before base64url without padding:
//
//	[0]        version
//	[1:5]      verb tag: SHA-256 of the verb, truncated
//	[5:13]     user tag: SHA-256 of the user id, truncated
//	[13:21]    list tag: SHA-256 of the list, truncated
//	[21:n-16]  position (the caller's bytes: a name, an id, a path)
//	[n-16:n]   HMAC-SHA256 over bytes [0:n-16] and the full binding, 128 bits
//
// The MAC covers the binding itself, not only its tags, so a tag collision
// can only change which refusal is reported, never let a cursor through.
// The tags exist to explain a refusal: another verb, another user, another
// list.
//
// The package imports only the standard library.
package cursor

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sync"
)

// Binding is what a cursor is valid for besides the key.
type Binding struct {
	// Verb is the method or tool that pages: "tools/list",
	// "resources/list", "list_commits".
	Verb string
	// User is the id of the user the cursor is issued to (0: none).
	User int64
	// List identifies the list within the verb: its filters, spelled the
	// same way on every page ("" when the verb has one list per user).
	List string
}

const (
	version    = 2
	verbTagLen = 4
	userTagLen = 8
	listTagLen = 8
	macLen     = 16
	headerLen  = 1 + verbTagLen + userTagLen + listTagLen
	// Overhead is the encoded size of a cursor with an empty position,
	// in bytes before base64.
	Overhead = headerLen + macLen
)

var encoding = base64.RawURLEncoding.Strict()

// Reason classifies a refused cursor.
type Reason int

// The reasons a cursor is refused.
const (
	// Malformed: too long, not base64url, truncated, unknown version.
	Malformed Reason = iota + 1
	// Forged: well-formed, but the signature does not match (altered,
	// made up, or signed with another secret).
	Forged
	// OtherVerb: genuine, minted by another method or tool.
	OtherVerb
	// OtherUser: genuine, issued to another user.
	OtherUser
	// OtherList: genuine, for another list of the same verb (other
	// filters).
	OtherList
)

// Error is a refused cursor. Its message starts "invalid cursor: ".
type Error struct {
	Reason Reason
	detail string
}

func (e *Error) Error() string { return "invalid cursor: " + e.detail }

// Detail is the reason in words, without the "invalid cursor: " prefix.
func (e *Error) Detail() string { return e.detail }

func refuse(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, detail: fmt.Sprintf(format, args...)}
}

// ErrTooLong is returned by [Signer.Seal] when the position does not fit
// within the signer's maximum length.
var ErrTooLong = errors.New("cursor position too long")

// Signer mints and opens cursors with one key. It is safe for concurrent
// use; keyed HMAC states are pooled, as every page signs or verifies one.
type Signer struct {
	pool   sync.Pool
	maxLen int
}

// New returns a Signer whose key is derived from the instance secret (an
// empty secret gets a random key: cursors then live as long as the
// process) and which mints and accepts cursors of at most maxLen
// characters.
func New(secret []byte, maxLen int) *Signer {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret) // never fails (crypto/rand)
	}
	km := hmac.New(sha256.New, secret)
	km.Write([]byte("glmcp cursor key v2"))
	key := km.Sum(nil)
	s := &Signer{maxLen: maxLen}
	s.pool.New = func() any { return hmac.New(sha256.New, key) }
	return s
}

// MaxLen is the longest cursor, in characters, the signer mints or opens.
func (s *Signer) MaxLen() int { return s.maxLen }

// MaxPosition is the longest position, in bytes, that fits in a cursor.
func (s *Signer) MaxPosition() int { return s.maxLen*3/4 - Overhead }

// Seal returns the cursor of position pos under binding b. It fails only
// with ErrTooLong.
func (s *Signer) Seal(b Binding, pos []byte) (string, error) {
	if len(pos) > s.MaxPosition() {
		return "", fmt.Errorf("seal %d-byte position for %s: %w", len(pos), b.Verb, ErrTooLong)
	}
	buf := make([]byte, 0, headerLen+len(pos)+macLen)
	buf = append(buf, version)
	buf = appendTags(buf, b)
	buf = append(buf, pos...)
	buf = s.mac(buf, buf, b)
	return encoding.EncodeToString(buf), nil
}

// Open returns the position of cursor c if c was minted by this signer
// under binding b. Any other cursor is an *Error.
func (s *Signer) Open(b Binding, c string) ([]byte, error) {
	if len(c) > s.maxLen {
		return nil, refuse(Malformed, "longer than %d characters", s.maxLen)
	}
	// The decoder skips CR and LF; refuse anything off the alphabet so one
	// cursor has one spelling.
	for i := 0; i < len(c); i++ {
		if !base64URLByte(c[i]) {
			return nil, refuse(Malformed, "not base64url")
		}
	}
	raw, err := encoding.DecodeString(c)
	if err != nil {
		return nil, refuse(Malformed, "not base64url")
	}
	if len(raw) < headerLen+macLen {
		return nil, refuse(Malformed, "truncated")
	}
	if raw[0] != version {
		return nil, refuse(Malformed, "unsupported version %d", raw[0])
	}
	body, sum := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	var tag [macLen]byte
	if !hmac.Equal(sum, s.mac(tag[:0], body, b)) {
		// Say why when the tags show it; otherwise it was altered.
		var want [headerLen]byte
		appendTags(want[:1], b)
		switch {
		case !hmac.Equal(body[1:5], want[1:5]):
			return nil, refuse(OtherVerb, "issued by a different method or tool")
		case !hmac.Equal(body[5:13], want[5:13]):
			return nil, refuse(OtherUser, "issued to another user")
		case !hmac.Equal(body[13:headerLen], want[13:headerLen]):
			return nil, refuse(OtherList, "issued for a different list")
		}
		return nil, refuse(Forged, "signature mismatch")
	}
	return body[headerLen:], nil
}

// SealInt returns the cursor of an integer position (an id, an offset).
func (s *Signer) SealInt(b Binding, n int64) string {
	var pos [8]byte
	binary.BigEndian.PutUint64(pos[:], uint64(n))
	c, _ := s.Seal(b, pos[:]) // 8 bytes fit any signer a caller builds
	return c
}

// OpenInt returns the integer position of a cursor minted by SealInt.
func (s *Signer) OpenInt(b Binding, c string) (int64, error) {
	pos, err := s.Open(b, c)
	if err != nil {
		return 0, err
	}
	if len(pos) != 8 {
		return 0, refuse(Malformed, "not an integer position")
	}
	return int64(binary.BigEndian.Uint64(pos)), nil
}

// appendTags appends the verb, user and list tags of b to dst.
func appendTags(dst []byte, b Binding) []byte {
	v := sha256.Sum256([]byte("glmcp-cursor-verb\x00" + b.Verb))
	dst = append(dst, v[:verbTagLen]...)
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], uint64(b.User))
	u := sha256.Sum256(append([]byte("glmcp-cursor-user\x00"), id[:]...))
	dst = append(dst, u[:userTagLen]...)
	l := sha256.Sum256([]byte("glmcp-cursor-list\x00" + b.List))
	return append(dst, l[:listTagLen]...)
}

// mac appends the truncated HMAC of body and the binding to dst.
func (s *Signer) mac(dst, body []byte, b Binding) []byte {
	m := s.pool.Get().(hash.Hash)
	m.Reset()
	m.Write(body)
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], uint64(b.User))
	m.Write([]byte{0})
	m.Write(id[:])
	// Lengths first, so no two bindings write the same bytes.
	var n [16]byte
	binary.BigEndian.PutUint64(n[:8], uint64(len(b.Verb)))
	binary.BigEndian.PutUint64(n[8:], uint64(len(b.List)))
	m.Write(n[:])
	m.Write([]byte(b.Verb))
	m.Write([]byte(b.List))
	var sum [sha256.Size]byte
	out := append(dst, m.Sum(sum[:0])[:macLen]...)
	s.pool.Put(m)
	return out
}

func base64URLByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}
