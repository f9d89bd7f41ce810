package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultLeeway is the clock skew tolerated on exp, nbf and iat when
// Config.Leeway is zero.
const DefaultLeeway = 30 * time.Second

// maxLeeway bounds Config.Leeway: more would keep expired tokens alive.
const maxLeeway = 5 * time.Minute

// minHS256Secret is the shortest shared secret accepted (RFC 7518 §3.2: at
// least the hash size).
const minHS256Secret = 32

// Config configures a Verifier. Exactly one of JWKS, PublicKeyPEM and
// HS256Secret must be set.
type Config struct {
	// Issuer is the exact iss value tokens must carry. Required.
	Issuer string
	// JWKS is a JWK Set: an http(s) URL, or a file path.
	JWKS string
	// PublicKeyPEM is one PEM public key (PKIX, PKCS #1 RSA, or an X.509
	// certificate); it verifies tokens whatever kid they name.
	PublicKeyPEM []byte
	// HS256Secret is a shared secret (at least 32 bytes); with it, HS256
	// and only HS256 is accepted.
	HS256Secret []byte
	// AllowPrivateJWKSHosts lets a JWKS URL resolve to loopback, private or
	// link-local addresses (tests; an issuer on the internal network).
	AllowPrivateJWKSHosts bool
	// Leeway is the clock skew tolerated on exp, nbf and iat; zero means
	// DefaultLeeway. At most 5 minutes.
	Leeway time.Duration
	// UserClaim names the claim identifying the user: "sub" (the default)
	// holds a numeric GitLab user id; any other name (for example
	// "preferred_username") holds a username.
	UserClaim string
	// HTTPClient fetches a JWKS URL. Nil: a client built here. Its Timeout
	// is capped at 5 s; unless AllowPrivateJWKSHosts, its Transport must be
	// nil or an *http.Transport, which is cloned to install the address
	// check.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// reservedClaims may not be used as the user claim.
var reservedClaims = map[string]bool{
	"iss": true, "aud": true, "exp": true, "nbf": true, "iat": true, "jti": true,
	"scope": true, "scp": true, "client_id": true, "azp": true,
}

// New checks cfg and returns a Verifier. A JWKS file or PEM key is read
// now, so a broken one is reported here; a JWKS URL is fetched on first use.
func New(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" || strings.TrimSpace(cfg.Issuer) != cfg.Issuer {
		return nil, errors.New("jwtauth: issuer is required and must not have surrounding spaces")
	}
	sources := 0
	for _, set := range []bool{cfg.JWKS != "", len(cfg.PublicKeyPEM) > 0, len(cfg.HS256Secret) > 0} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return nil, fmt.Errorf("jwtauth: exactly one key source (JWKS, public key PEM, HS256 secret) is required, %d given", sources)
	}
	leeway := cfg.Leeway
	switch {
	case leeway < 0 || leeway > maxLeeway:
		return nil, fmt.Errorf("jwtauth: leeway %s not within 0..%s", leeway, maxLeeway)
	case leeway == 0:
		leeway = DefaultLeeway
	}
	userClaim := cfg.UserClaim
	if userClaim == "" {
		userClaim = "sub"
	}
	if reservedClaims[userClaim] {
		return nil, fmt.Errorf("jwtauth: claim %q cannot identify a user", userClaim)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	v := &Verifier{issuer: cfg.Issuer, leeway: leeway, userClaim: userClaim, now: now}

	var err error
	switch {
	case len(cfg.HS256Secret) > 0:
		if len(cfg.HS256Secret) < minHS256Secret {
			return nil, fmt.Errorf("jwtauth: HS256 secret shorter than %d bytes", minHS256Secret)
		}
		secret := append([]byte(nil), cfg.HS256Secret...)
		v.keys = staticStore(&keySet{keys: []verifyKey{{anyKID: true, alg: algHS256, key: secret}}})
		v.hmac = true
	case len(cfg.PublicKeyPEM) > 0:
		k, err := parsePEMKey(cfg.PublicKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("jwtauth: public key: %w", err)
		}
		v.keys = staticStore(&keySet{keys: []verifyKey{k}})
	default:
		v.keys, err = jwksStore(cfg, now)
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

// jwksStore builds the key store for cfg.JWKS: a URL (fetched lazily) or a
// file (read now).
func jwksStore(cfg Config, now func() time.Time) (*keyStore, error) {
	src := cfg.JWKS
	if scheme, _, ok := strings.Cut(src, "://"); ok {
		u, err := url.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("jwtauth: jwks url: %w", err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("jwtauth: jwks url scheme %q not supported (http, https)", scheme)
		}
		client, err := jwksClient(cfg.HTTPClient, cfg.AllowPrivateJWKSHosts)
		if err != nil {
			return nil, fmt.Errorf("jwtauth: %w", err)
		}
		return &keyStore{load: urlLoader(u.String(), client), now: now}, nil
	}
	s := &keyStore{load: fileLoader(src), now: now}
	if err := s.reload(context.Background()); err != nil {
		return nil, fmt.Errorf("jwtauth: %w", err)
	}
	return s, nil
}

// Refresh loads the JWKS now, so a server can warm the cache and report an
// unreachable issuer at start. Within 30 s of the last load it loads
// nothing and returns that load's error (nil if it succeeded). It is a
// no-op for a PEM key or a shared secret.
func (v *Verifier) Refresh(ctx context.Context) error {
	if v.keys.load == nil {
		return nil
	}
	if err := v.keys.reload(ctx); err != nil && !errors.Is(err, errTooSoon) {
		return err
	}
	return nil
}
