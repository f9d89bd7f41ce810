package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// maxTokenBytes bounds the tokens looked at; larger ones are malformed.
const maxTokenBytes = 16 << 10

// Verifier verifies access tokens. It is safe for concurrent use.
type Verifier struct {
	issuer    string
	leeway    time.Duration
	userClaim string
	now       func() time.Time
	keys      *keyStore
	// hmac is set when the key is a shared secret (HS256 only).
	hmac bool
}

// Verify checks raw as an access token for audience (the canonical URL of
// the endpoint being called) and returns its claims. A refused token is a
// [*TokenError]; any other error means Verify was misused (empty audience).
// The caller still has to check that the user exists and is active.
func (v *Verifier) Verify(ctx context.Context, raw, audience string) (*Claims, error) {
	if audience == "" {
		return nil, errors.New("jwtauth: verify: audience is required")
	}
	if len(raw) > maxTokenBytes {
		return nil, tokenErr(ReasonMalformed, errors.New("token too large"))
	}
	c := &accessClaims{userClaim: v.userClaim}
	parser := jwt.NewParser(
		jwt.WithTimeFunc(v.now),
		jwt.WithLeeway(v.leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithIssuer(v.issuer),
		jwt.WithAudience(audience),
	)
	// The algorithm is checked in keyFunc rather than with
	// jwt.WithValidMethods, which reports a refused alg as a bad signature.
	if _, err := parser.ParseWithClaims(raw, c, v.keyFunc(ctx)); err != nil {
		return nil, classify(err, c)
	}
	return v.claims(c)
}

// keyFunc finds the keys for a token: typ and alg checked first, then the
// kid looked up, with one rate-limited key set reload on a miss.
func (v *Verifier) keyFunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		if err := checkHeader(t.Header); err != nil {
			return nil, err
		}
		alg := t.Method.Alg()
		if !v.algAllowed(alg) {
			return nil, tokenErr(ReasonAlgorithm, nil)
		}
		kid, _ := t.Header["kid"].(string)
		set, loaded, loadErr := v.keys.current(ctx)
		keys, known := set.match(kid, alg)
		if !known && !loaded {
			loadErr = v.keys.reloadMiss(ctx)
			set, _, _ = v.keys.current(ctx)
			keys, known = set.match(kid, alg)
		}
		switch {
		case len(keys) == 1:
			return keys[0], nil
		case len(keys) > 1:
			return jwt.VerificationKeySet{Keys: keys}, nil
		case known:
			return nil, tokenErr(ReasonAlgorithm, errors.New("key type does not match alg"))
		}
		if loadErr == nil || errors.Is(loadErr, errTooSoon) {
			loadErr = errKeyNotInSet
		}
		return nil, tokenErr(ReasonUnknownKey, loadErr)
	}
}

func (v *Verifier) algAllowed(alg string) bool {
	if v.hmac {
		return alg == algHS256
	}
	return alg == algRS256 || alg == algES256 || alg == algEdDSA
}

// checkHeader refuses a typ other than at+jwt (RFC 9068 §2.1) and any crit
// extension (RFC 7515 §4.1.11: none is understood here). Key-locating
// headers (jku, jwk, x5u, x5c) are ignored, never followed.
func checkHeader(h map[string]any) error {
	if typ, ok := h["typ"]; ok {
		s, _ := typ.(string)
		switch strings.ToLower(s) {
		case "at+jwt", "application/at+jwt":
		default:
			return tokenErr(ReasonTokenType, nil)
		}
	}
	if _, ok := h["crit"]; ok {
		return tokenErr(ReasonMalformed, errors.New("crit header not supported"))
	}
	return nil
}

// claims turns verified wire claims into Claims.
func (v *Verifier) claims(c *accessClaims) (*Claims, error) {
	out := &Claims{
		Subject:  c.Subject,
		Scopes:   c.scopes(),
		Audience: []string(c.Audience),
		ClientID: c.ClientID,
		JTI:      c.ID,
	}
	if out.ClientID == "" {
		out.ClientID = c.AZP
	}
	if c.ExpiresAt != nil {
		out.ExpiresAt = c.ExpiresAt.Time.UTC()
	}
	if v.userClaim == "sub" {
		id, err := strconv.ParseInt(c.Subject, 10, 64)
		if err != nil || id <= 0 {
			return nil, tokenErr(ReasonUserClaim, errors.New("sub is not a positive user id"))
		}
		out.UserID = id
		return out, nil
	}
	var name string
	if err := json.Unmarshal(c.user, &name); err != nil || strings.TrimSpace(name) == "" {
		return nil, tokenErr(ReasonUserClaim, errors.New("user claim is not a non-empty string"))
	}
	out.Username = name
	return out, nil
}

// classify maps a parse error to a TokenError. Signature problems are
// reported before claim problems, since the parser checks them first.
func classify(err error, c *accessClaims) *TokenError {
	var te *TokenError
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, jwt.ErrTokenMalformed):
		return tokenErr(ReasonMalformed, err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return tokenErr(ReasonSignature, err)
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		return claimsErr(err, c)
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		// Parsing found no usable alg ("none" never gets here: keyFunc
		// refuses it).
		return tokenErr(ReasonAlgorithm, err)
	default:
		return tokenErr(ReasonMalformed, err)
	}
}

// claimsErr picks one reason among the claim failures, most telling first.
// A missing required claim is told apart by looking at the claims.
func claimsErr(err error, c *accessClaims) *TokenError {
	noAud := len(c.Audience) == 0 || len(c.Audience) == 1 && c.Audience[0] == ""
	switch {
	case c.Issuer == "" || errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return tokenErr(ReasonIssuer, err)
	case noAud || errors.Is(err, jwt.ErrTokenInvalidAudience):
		return tokenErr(ReasonAudience, err)
	case c.ExpiresAt == nil:
		return tokenErr(ReasonNoExpiry, err)
	case errors.Is(err, jwt.ErrTokenExpired):
		return tokenErr(ReasonExpired, err)
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return tokenErr(ReasonNotYetValid, err)
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return tokenErr(ReasonIssuedInFuture, err)
	default:
		return tokenErr(ReasonInvalidClaims, err)
	}
}
