package jwtauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// Algorithms accepted, one per key type.
const (
	algRS256 = "RS256"
	algES256 = "ES256"
	algEdDSA = "EdDSA"
	algHS256 = "HS256"
)

// RSA key sizes accepted: at least 2048 bits (NIST SP 800-131A), at most
// 8192 so a hostile key set cannot make verification expensive.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// verifyKey is one key that may verify tokens signed with alg.
type verifyKey struct {
	kid string
	// anyKID keys (a PEM key, a shared secret) match whatever kid a token
	// names.
	anyKID bool
	alg    string
	key    jwt.VerificationKey
}

// keySet is an immutable set of verification keys.
type keySet struct {
	keys []verifyKey
}

// match returns the keys that may verify a token with kid and alg. kidKnown
// reports whether some key carries that kid (or, for an empty kid, whether
// the set has any key), so a known kid with the wrong alg can be told apart
// from an unknown kid.
func (s *keySet) match(kid, alg string) (keys []jwt.VerificationKey, kidKnown bool) {
	if s == nil {
		return nil, false
	}
	for _, k := range s.keys {
		if kid != "" && !k.anyKID && k.kid != kid {
			continue
		}
		kidKnown = true
		if k.alg == alg {
			keys = append(keys, k.key)
		}
	}
	return keys, kidKnown
}

// algFor returns the one algorithm a public key may verify.
func algFor(pub any) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if k.N == nil || k.N.BitLen() < minRSABits || k.N.BitLen() > maxRSABits {
			return "", fmt.Errorf("rsa key size not within %d..%d bits", minRSABits, maxRSABits)
		}
		return algRS256, nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("ec key is not on curve P-256")
		}
		return algES256, nil
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return "", errors.New("ed25519 key has the wrong size")
		}
		return algEdDSA, nil
	default:
		return "", fmt.Errorf("unsupported key type %T", pub)
	}
}

// parsePEMKey reads one public key (PKIX "PUBLIC KEY", PKCS #1 "RSA PUBLIC
// KEY" or an X.509 "CERTIFICATE") from PEM.
func parsePEMKey(data []byte) (verifyKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return verifyKey{}, errors.New("no PEM block found")
	}
	var (
		pub any
		err error
	)
	switch block.Type {
	case "PUBLIC KEY":
		pub, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		cert, err = x509.ParseCertificate(block.Bytes)
		if err == nil {
			pub = cert.PublicKey
		}
	default:
		return verifyKey{}, fmt.Errorf("PEM block %q is not a public key or certificate", block.Type)
	}
	if err != nil {
		return verifyKey{}, fmt.Errorf("parse PEM %q: %w", block.Type, err)
	}
	alg, err := algFor(pub)
	if err != nil {
		return verifyKey{}, err
	}
	return verifyKey{anyKID: true, alg: alg, key: pub}, nil
}
