package jwtauth

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// LooksLikeJWT reports whether raw has the shape of a JWS compact
// serialization: three dot-separated base64url segments (the signature may
// be empty), at most 16 KiB, whose first segment decodes to a JSON object
// with a string "alg". It verifies nothing; it tells a JWT from a personal
// access token so the caller can pick the verifier, and a JWT-shaped token
// that then fails verification must be refused, not tried as a PAT.
func LooksLikeJWT(raw string) bool {
	if len(raw) > maxTokenBytes || strings.Count(raw, ".") != 2 {
		return false
	}
	header, rest, _ := strings.Cut(raw, ".")
	payload, sig, _ := strings.Cut(rest, ".")
	if header == "" || payload == "" || !isB64URL(header) || !isB64URL(payload) || !isB64URL(sig) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return false
	}
	var h struct {
		Alg *string `json:"alg"`
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Alg == nil {
		return false
	}
	return true
}

func isB64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
