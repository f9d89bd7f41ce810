package auth

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// OAuthTokenStore finds GitLab OAuth access tokens (oauth_access_tokens).
type OAuthTokenStore interface {
	// FindOAuthTokenByDigest returns the token whose token column is
	// digest, with its owner loaded (nil when it names none), or an error
	// wrapping models.ErrNotFound.
	FindOAuthTokenByDigest(ctx context.Context, digest string) (*models.OAuthAccessToken, error)
}

// Bounds of what is looked up as an OAuth access token. GitLab's are 64
// hex characters (Doorkeeper's hex generator); anything of token
// characters in this range is looked up, anything else is malformed
// without a query.
const (
	minOAuthTokenLen = 20
	maxOAuthTokenLen = 255
	// pbkdf2Rounds and the empty salt are GitLab's
	// Gitlab::DoorkeeperSecretStoring::Pbkdf2Sha512.
	pbkdf2Rounds = 20_000
)

// OAuthDigest is how GitLab stores an OAuth access token today: the
// SHA-512 of the token in lower-case hex.
func OAuthDigest(token string) string {
	sum := sha512.Sum512([]byte(token))
	return hex.EncodeToString(sum[:])
}

// OAuthLegacyDigest is the form GitLab stored before SHA-512 (still found
// on older rows): passlib's "$pbkdf2-sha512$20000$$<checksum>", the
// checksum being PBKDF2-HMAC-SHA512 of the token with an empty salt,
// 20,000 rounds and 64 bytes, in base64 with "+" written "." and no
// padding.
func OAuthLegacyDigest(token string) string {
	key, err := pbkdf2.Key(sha512.New, token, nil, pbkdf2Rounds, sha512.Size)
	if err != nil { // only for FIPS-140-only mode with a short salt
		return ""
	}
	sum := strings.ReplaceAll(base64.RawStdEncoding.EncodeToString(key), "+", ".")
	return fmt.Sprintf("$pbkdf2-sha512$%d$$%s", pbkdf2Rounds, sum)
}

// GenerateOAuthToken returns a new access token shaped like GitLab's: 32
// random bytes from r (crypto/rand.Reader when nil) in hex.
func GenerateOAuthToken(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	buf := make([]byte, 32)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("generate oauth token: %w", err)
	}
	return hex.EncodeToString(buf), nil
}

// oauthCandidate reports whether raw may be looked up as an OAuth access
// token.
func oauthCandidate(raw string) bool {
	return len(raw) >= minOAuthTokenLen && len(raw) <= maxOAuthTokenLen && isTokenChars(raw)
}

// isHexToken reports whether raw is a Doorkeeper hex token, the only
// shape old enough to have been stored in the PBKDF2 form.
func isHexToken(raw string) bool {
	if len(raw) != 64 {
		return false
	}
	_, err := hex.DecodeString(raw)
	return err == nil
}

// authenticateOAuth verifies an opaque GitLab OAuth access token: looked
// up by its SHA-512 digest, then (hex tokens only: the PBKDF2 form costs
// 20,000 rounds) by its legacy digest.
func (a *Authenticator) authenticateOAuth(ctx context.Context, raw string) (*models.Identity, error) {
	tok, err := a.findOAuthToken(ctx, raw)
	if errors.Is(err, models.ErrNotFound) {
		return nil, unauthenticated(reasonOAuthInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate oauth token: %w", err)
	}
	now := a.now()
	switch {
	case tok.Revoked(now):
		return nil, unauthenticated(reasonOAuthRevoked)
	case tok.Expired(now):
		return nil, unauthenticated(reasonOAuthExpired)
	case tok.User == nil:
		// A client-credentials token acts for no user.
		return nil, unauthenticated(reasonOAuthNoUser)
	}
	if err := UserAllowed(tok.User); err != nil {
		return nil, err
	}
	user := *tok.User // the row may be cached: the identity gets its own copy
	return &models.Identity{User: &user, Method: models.MethodOAuth, OAuthTokenID: tok.ID, Scopes: tok.ScopeList()}, nil
}

// findOAuthToken returns the OAuth access token row of raw, from the
// identity cache (keyed by the SHA-512 digest, whichever digest found the
// row: the PBKDF2 form costs 20,000 rounds) when it holds it. The row is
// shared: read-only.
func (a *Authenticator) findOAuthToken(ctx context.Context, raw string) (*models.OAuthAccessToken, error) {
	digest := OAuthDigest(raw)
	e, t, use := a.cache.lookup(ctx, digest)
	if e != nil && e.oauth != nil {
		return e.oauth, nil
	}
	tok, err := a.oauth.FindOAuthTokenByDigest(ctx, digest)
	if errors.Is(err, models.ErrNotFound) && isHexToken(raw) {
		tok, err = a.oauth.FindOAuthTokenByDigest(ctx, OAuthLegacyDigest(raw))
	}
	if err == nil && use && cacheable(tok.User) {
		a.cache.store(t, &cachedToken{oauth: tok})
	}
	return tok, err
}
