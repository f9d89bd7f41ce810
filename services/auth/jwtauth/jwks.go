package jwtauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// jwk is the subset of an RFC 7517 JSON Web Key this package reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parseJWKS reads an RFC 7517 JWK Set. Keys this package cannot use (other
// key types or curves, encryption keys, RSA keys under 2048 bits, keys whose
// "alg" is not the one their type verifies here) are skipped; a set with no
// usable key is an error.
func parseJWKS(data []byte) (*keySet, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse jwks: %w", err)
	}
	if doc.Keys == nil {
		return nil, errors.New("parse jwks: no \"keys\" member")
	}
	set := &keySet{}
	var skipped []error
	for i, raw := range doc.Keys {
		k, err := parseJWK(raw)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("key %d: %w", i, err))
			continue
		}
		set.keys = append(set.keys, k)
	}
	if len(set.keys) == 0 {
		return nil, fmt.Errorf("parse jwks: no usable signing key (RSA ≥ 2048 bits, EC P-256, Ed25519): %w", errors.Join(skipped...))
	}
	return set, nil
}

func parseJWK(raw json.RawMessage) (verifyKey, error) {
	var k jwk
	if err := json.Unmarshal(raw, &k); err != nil {
		return verifyKey{}, err
	}
	if k.Use != "" && k.Use != "sig" {
		return verifyKey{}, fmt.Errorf("use %q is not sig", k.Use)
	}
	pub, err := k.publicKey()
	if err != nil {
		return verifyKey{}, err
	}
	alg, err := algFor(pub)
	if err != nil {
		return verifyKey{}, err
	}
	if k.Alg != "" && k.Alg != alg {
		return verifyKey{}, fmt.Errorf("alg %q not accepted for a %s key", k.Alg, k.Kty)
	}
	return verifyKey{kid: k.Kid, alg: alg, key: pub}, nil
}

func (k *jwk) publicKey() (any, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64Int(k.N)
		if err != nil {
			return nil, fmt.Errorf("rsa n: %w", err)
		}
		e, err := b64Int(k.E)
		if err != nil {
			return nil, fmt.Errorf("rsa e: %w", err)
		}
		if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return nil, errors.New("rsa e out of range")
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		if k.Crv != "P-256" {
			return nil, fmt.Errorf("ec curve %q not supported", k.Crv)
		}
		x, err := b64Fixed(k.X, 32)
		if err != nil {
			return nil, fmt.Errorf("ec x: %w", err)
		}
		y, err := b64Fixed(k.Y, 32)
		if err != nil {
			return nil, fmt.Errorf("ec y: %w", err)
		}
		point := append(append([]byte{4}, x...), y...)
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, fmt.Errorf("okp curve %q not supported", k.Crv)
		}
		x, err := b64Fixed(k.X, ed25519.PublicKeySize)
		if err != nil {
			return nil, fmt.Errorf("okp x: %w", err)
		}
		return ed25519.PublicKey(x), nil
	default:
		return nil, fmt.Errorf("kty %q not supported", k.Kty)
	}
}

// b64 decodes base64url, with or without padding (RFC 7517 says without;
// some issuers pad).
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func b64Int(s string) (*big.Int, error) {
	b, err := b64(s)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errors.New("empty")
	}
	return new(big.Int).SetBytes(b), nil
}

func b64Fixed(s string, size int) ([]byte, error) {
	b, err := b64(s)
	if err != nil {
		return nil, err
	}
	if len(b) != size {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), size)
	}
	return b, nil
}
