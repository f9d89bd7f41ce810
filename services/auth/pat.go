package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
)

// TokenPrefix is GitLab's personal access token prefix.
const TokenPrefix = "glpat-"

// Routable tokens (the format glmcp mints, like GitLab 17.x's) look like
//
//	glpat-<payload>.01.<crc>
//
// where payload is base64url random data and crc is the CRC-32 (IEEE) of
// everything before the last dot, in base 36, zero-padded to 7 characters.
// Legacy GitLab tokens (glpat- followed by exactly 20 characters of
// [0-9A-Za-z_-]) carry no checksum and are accepted on shape alone, so tokens
// minted by a GitLab instance with the same secret keep working.
const (
	routableVersion = "01"
	crcLen          = 7
	legacyLen       = 20
	payloadBytes    = 24 // 32 base64url characters
	maxTokenLen     = 255
)

// GenerateToken mints a new routable personal access token from r
// (crypto/rand.Reader when r is nil).
func GenerateToken(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	buf := make([]byte, payloadBytes)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	body := TokenPrefix + base64.RawURLEncoding.EncodeToString(buf) + "." + routableVersion
	return body + "." + checksum(body), nil
}

// WellFormed reports whether raw has the shape of a personal access token
// (and, for routable tokens, a correct checksum). It does no I/O, so
// malformed tokens are refused before any database work.
func WellFormed(raw string) bool {
	if len(raw) > maxTokenLen || !strings.HasPrefix(raw, TokenPrefix) {
		return false
	}
	rest := raw[len(TokenPrefix):]
	if len(rest) == legacyLen && isTokenChars(rest) {
		return true
	}
	last := strings.LastIndexByte(raw, '.')
	if last < 0 || len(raw)-last-1 != crcLen {
		return false
	}
	body := raw[:last]
	if !strings.HasSuffix(body, "."+routableVersion) {
		return false
	}
	payload := body[len(TokenPrefix) : len(body)-len(routableVersion)-1]
	if len(payload) < legacyLen || !isTokenChars(payload) {
		return false
	}
	return raw[last+1:] == checksum(body)
}

// Digest returns the value stored in personal_access_tokens.token_digest:
// base64(SHA-256(token ‖ first 32 characters of the instance secret)), the
// digest GitLab stores, so a GitLab instance sharing the secret agrees.
func Digest(token, secret string) string {
	if len(secret) > 32 {
		secret = secret[:32]
	}
	h := sha256.New()
	h.Write([]byte(token))
	h.Write([]byte(secret))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

func checksum(body string) string {
	s := strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 36)
	if len(s) < crcLen {
		s = strings.Repeat("0", crcLen-len(s)) + s
	}
	return s
}

func isTokenChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
