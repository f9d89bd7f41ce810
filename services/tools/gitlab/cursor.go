package gitlab

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// maxCursorLen bounds a cursor argument before any work is done on it.
const maxCursorLen = 512

// cursorSigner mints and opens the opaque cursors of GitLab's
// GraphQL-backed tools (first/after). A cursor is the base64url JSON of the
// position, a dot and a truncated HMAC-SHA256 over the tool's name and the
// position, so it is self-contained, tamper-evident and valid only for the
// tool that minted it.
type cursorSigner struct{ key []byte }

func newCursorSigner(secret []byte) *cursorSigner {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret) // never fails (crypto/rand)
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("glmcp gitlab tool cursors v1"))
	return &cursorSigner{key: m.Sum(nil)}
}

func (c *cursorSigner) mac(tool string, payload []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(tool))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)[:16]
}

// seal returns the cursor of position v for tool.
func (c *cursorSigner) seal(tool string, v any) string {
	payload, _ := json.Marshal(v) // positions are plain structs
	return base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(c.mac(tool, payload))
}

// open decodes cursor s minted by tool into v; anything else is an invalid
// argument naming field.
func (c *cursorSigner) open(tool, field, s string, v any) error {
	bad := invalidf("%s: not a cursor returned by %s", field, tool)
	if len(s) > maxCursorLen {
		return bad
	}
	p, sig, ok := strings.Cut(s, ".")
	if !ok {
		return bad
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, c.mac(tool, payload)) {
		return bad
	}
	if json.Unmarshal(payload, v) != nil {
		return bad
	}
	return nil
}
