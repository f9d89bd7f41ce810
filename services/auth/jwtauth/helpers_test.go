package jwtauth_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"gitlab.com/glmcp/glmcp/internal/clocktest"
	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
)

const (
	testIssuer = "https://issuer.test/realms/glmcp"
	ceAud      = "https://gitlab.example.com/api/v4/mcp"
	eeAud      = "https://gitlab.example.com/api/v4/orbit/mcp"
)

var t0 = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

// Keys are generated once per test binary: RSA generation is slow.
var (
	rsaKey = sync.OnceValue(func() *rsa.PrivateKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		return k
	})
	rsaKey2 = sync.OnceValue(func() *rsa.PrivateKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		return k
	})
	ecKey = sync.OnceValue(func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	})
	edKey = sync.OnceValue(func() ed25519.PrivateKey {
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	})
)

// signer is one signing key of the test issuer.
type signer struct {
	kid    string
	method jwt.SigningMethod
	key    any // private key
	pub    any
}

func rsaSigner() signer {
	return signer{kid: "rsa-1", method: jwt.SigningMethodRS256, key: rsaKey(), pub: &rsaKey().PublicKey}
}
func rsaSigner2() signer {
	return signer{kid: "rsa-2", method: jwt.SigningMethodRS256, key: rsaKey2(), pub: &rsaKey2().PublicKey}
}
func ecSigner() signer {
	return signer{kid: "ec-1", method: jwt.SigningMethodES256, key: ecKey(), pub: &ecKey().PublicKey}
}
func edSigner() signer {
	return signer{kid: "ed-1", method: jwt.SigningMethodEdDSA, key: edKey(), pub: edKey().Public()}
}

// newClock returns a test clock at t0.
func newClock() *clocktest.Clock { return clocktest.New(t0) }

// baseClaims are valid claims at t0 for the CE endpoint.
func baseClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss":       testIssuer,
		"aud":       []string{ceAud},
		"sub":       "42",
		"exp":       t0.Add(5 * time.Minute).Unix(),
		"iat":       t0.Unix(),
		"scope":     "mcp api",
		"client_id": "claude-code",
		"jti":       "tok-1",
	}
}

// sign signs claims with s; header entries override (nil removes) the
// defaults kid=s.kid, typ=at+jwt.
func sign(t testing.TB, s signer, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.method, claims)
	tok.Header["kid"] = s.kid
	tok.Header["typ"] = "at+jwt"
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
		} else {
			tok.Header[k] = v
		}
	}
	raw, err := tok.SignedString(s.key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return raw
}

// unsigned builds header.payload. with an empty signature.
func unsigned(t testing.TB, header, claims map[string]any) string {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	c, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

// jwkOf encodes a public key as an RFC 7517 JWK.
func jwkOf(kid string, pub any) map[string]any {
	b64 := base64.RawURLEncoding.EncodeToString
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
			"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	case *ecdsa.PublicKey:
		x, y := make([]byte, 32), make([]byte, 32)
		k.X.FillBytes(x)
		k.Y.FillBytes(y)
		return map[string]any{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(x), "y": b64(y)}
	case ed25519.PublicKey:
		return map[string]any{"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64(k)}
	default:
		panic("jwkOf: unsupported key")
	}
}

func jwksOf(signers ...signer) []byte {
	keys := make([]map[string]any, 0, len(signers))
	for _, s := range signers {
		keys = append(keys, jwkOf(s.kid, s.pub))
	}
	b, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		panic(err)
	}
	return b
}

func pemOf(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// jwksServer serves a JWKS that tests can swap, counting fetches.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int32
	mu      sync.Mutex
	body    []byte
	status  int
}

func newJWKSServer(t *testing.T, body []byte) *jwksServer {
	t.Helper()
	s := &jwksServer{body: body, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		body, status := s.body, s.status
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(body []byte, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body, s.status = body, status
}

// newVerifier builds a verifier on a JWKS server serving signers.
func newVerifier(t *testing.T, clk *clocktest.Clock, signers ...signer) (*jwtauth.Verifier, *jwksServer) {
	t.Helper()
	srv := newJWKSServer(t, jwksOf(signers...))
	v, err := jwtauth.New(jwtauth.Config{
		Issuer:                testIssuer,
		JWKS:                  srv.URL + "/jwks",
		AllowPrivateJWKSHosts: true,
		Now:                   clk.Now,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v, srv
}

// wantReason asserts err is a *TokenError with reason.
func wantReason(t *testing.T, err error, reason string) *jwtauth.TokenError {
	t.Helper()
	var te *jwtauth.TokenError
	if !errors.As(err, &te) {
		t.Fatalf("error = %v (%T), want *TokenError %q", err, err, reason)
	}
	if te.Reason != reason {
		t.Fatalf("reason = %q, want %q (err: %v)", te.Reason, reason, err)
	}
	return te
}

// roundTripFunc is an http.RoundTripper that is not an *http.Transport.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
