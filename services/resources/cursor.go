package resources

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
)

// cursorSigner mints and opens resources/list cursors: self-contained
// (the last project id of the page), bound to the verb and to the user
// they were issued to, and tamper-evident (HMAC-SHA256, truncated to 16
// bytes). A cursor from tools/list, from another user or edited by hand is
// refused with an *InvalidError.
type cursorSigner struct{ key []byte }

const (
	cursorVersion = 1
	cursorMACLen  = 16
	cursorBodyLen = 1 + 8 + 8 // version, user id, last id
	maxCursorLen  = 64
)

func newCursorSigner(secret []byte) cursorSigner {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("glmcp resources/list cursor key"))
	return cursorSigner{key: m.Sum(nil)}
}

func (c cursorSigner) mac(body []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte("resources/list\x00"))
	m.Write(body)
	return m.Sum(nil)[:cursorMACLen]
}

func (c cursorSigner) seal(userID, lastID int64) string {
	body := make([]byte, cursorBodyLen)
	body[0] = cursorVersion
	binary.BigEndian.PutUint64(body[1:], uint64(userID))
	binary.BigEndian.PutUint64(body[9:], uint64(lastID))
	return base64.RawURLEncoding.EncodeToString(append(body, c.mac(body)...))
}

func (c cursorSigner) open(cursor string, userID int64) (int64, error) {
	bad := invalidf("Invalid cursor: it was not issued by resources/list for this caller, or it was altered")
	if cursor == "" || len(cursor) > maxCursorLen {
		return 0, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) != cursorBodyLen+cursorMACLen {
		return 0, bad
	}
	body, sum := raw[:cursorBodyLen], raw[cursorBodyLen:]
	if !hmac.Equal(sum, c.mac(body)) || body[0] != cursorVersion ||
		int64(binary.BigEndian.Uint64(body[1:])) != userID {
		return 0, bad
	}
	last := int64(binary.BigEndian.Uint64(body[9:]))
	if last <= 0 {
		return 0, bad
	}
	return last, nil
}
