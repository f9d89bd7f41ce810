package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// TokenStore is what the authenticator needs from the store.
type TokenStore interface {
	// FindTokenByDigest returns the token with its User loaded, or an error
	// wrapping models.ErrNotFound.
	FindTokenByDigest(ctx context.Context, digest string) (*models.PersonalAccessToken, error)
	// TouchTokenLastUsed sets last_used_at = at unless it was set less than
	// ten minutes before at.
	TouchTokenLastUsed(ctx context.Context, id int64, at time.Time) error
}

// LastUsedInterval is how often last_used_at is written per token at most.
const LastUsedInterval = 10 * time.Minute

// Failure reasons shown to the caller (error_description). Each names the
// credential, what is wrong with it and what to do, within the first 200
// characters of the body (some clients show no more). GitLab's bodies keep
// their shape; its texts ("Token was revoked. You have to re-authorize from
// the user.") say less, and treat every token as an OAuth grant.
const (
	reasonMalformed = "Token is malformed: it is not a GitLab personal access token (glpat-...) or OAuth access token. " +
		"Send the whole token, as Authorization: Bearer TOKEN."
	reasonInvalid = "Personal access token is invalid: this server knows no such token. " +
		"Check it was copied whole, or create a new one with the mcp scope."
	reasonRevoked = "Personal access token was revoked. " +
		"Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead."
	reasonExpired = "Personal access token has expired. " +
		"Create a new one with the mcp scope (GitLab: User settings, Access tokens) and use it instead."

	reasonOAuthInvalid = "Access token is invalid: this server knows no such personal access token or OAuth access token. " +
		"Sign in again, or send a personal access token."
	reasonOAuthRevoked = "OAuth access token was revoked. You have to re-authorize the application: sign in again."
	reasonOAuthExpired = "OAuth access token has expired. Refresh it, or sign in again."
	reasonOAuthNoUser  = "OAuth access token acts for no user (client credentials). Sign in as a user, or send a personal access token."
)

// Authenticator verifies personal access tokens and, when given an
// OAuthTokenStore, GitLab's opaque OAuth access tokens.
type Authenticator struct {
	store  TokenStore
	oauth  OAuthTokenStore
	cache  *IdentityCache // nil: every request asks the store
	format *TokenFormat
	secret string
	now    func() time.Time
	logger *slog.Logger

	mu      sync.Mutex
	touched map[int64]time.Time // token id → last time a touch was queued
	queue   chan touch
}

type touch struct {
	id int64
	at time.Time
}

// Option configures an Authenticator.
type Option func(*Authenticator)

// WithTokenFormat sets the accepted personal access token prefixes
// (default: DefaultTokenFormat).
func WithTokenFormat(f *TokenFormat) Option { return func(a *Authenticator) { a.format = f } }

// WithOAuthTokens looks up credentials that are not personal access tokens
// in s as GitLab OAuth access tokens. Without it they are malformed.
func WithOAuthTokens(s OAuthTokenStore) Option { return func(a *Authenticator) { a.oauth = s } }

// WithIdentityCache answers credentials seen before from c (see
// IdentityCache for how it stays true to the database).
func WithIdentityCache(c *IdentityCache) Option { return func(a *Authenticator) { a.cache = c } }

// NewAuthenticator returns an Authenticator. secret is the instance secret
// (at least 32 characters); now defaults to time.Now.
func NewAuthenticator(store TokenStore, secret string, now func() time.Time, logger *slog.Logger, opts ...Option) (*Authenticator, error) {
	if store == nil {
		return nil, errors.New("new authenticator: nil token store")
	}
	if len(secret) < 32 {
		return nil, errors.New("new authenticator: secret must be at least 32 characters")
	}
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{
		store: store, secret: secret, now: now, logger: logger,
		format:  DefaultTokenFormat(),
		touched: make(map[int64]time.Time),
		queue:   make(chan touch, 1024),
	}
	for _, o := range opts {
		o(a)
	}
	if a.format == nil {
		return nil, errors.New("new authenticator: nil token format")
	}
	return a, nil
}

// Authenticate verifies a personal access token, or an OAuth access token
// when the credential has no personal access token prefix. Malformed
// tokens are refused from their text alone (prefix, shape, length field,
// version, checksum), before any query. Unknown, revoked and expired
// tokens, and a routable token whose `u` is not its owner, give an
// Unauthenticated *Error; a blocked or deactivated user gives
// UserForbidden. Store failures are returned wrapped.
func (a *Authenticator) Authenticate(ctx context.Context, raw string) (*models.Identity, error) {
	parsed, err := a.format.Parse(raw)
	if errors.Is(err, ErrNotPersonalToken) && a.oauth != nil && oauthCandidate(raw) {
		return a.authenticateOAuth(ctx, raw)
	}
	if err != nil {
		return nil, unauthenticated(reasonMalformed)
	}
	tok, err := a.findToken(ctx, Digest(raw, a.secret))
	if errors.Is(err, models.ErrNotFound) {
		return nil, unauthenticated(reasonInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate token: %w", err)
	}
	// A routable token names its owner: a row of another user means the
	// token was not minted for it. Same answer as an unknown token.
	if u, ok := parsed.UserID(); ok && u != tok.UserID {
		return nil, unauthenticated(reasonInvalid)
	}
	now := a.now()
	switch {
	case tok.Revoked:
		return nil, unauthenticated(reasonRevoked)
	case tok.Expired(now):
		return nil, unauthenticated(reasonExpired)
	case tok.User == nil:
		return nil, unauthenticated(reasonInvalid)
	}
	if err := UserAllowed(tok.User); err != nil {
		return nil, err
	}
	a.markUsed(tok.ID, now)
	user := *tok.User // the row may be cached: the identity gets its own copy
	return &models.Identity{User: &user, Method: models.MethodPAT, TokenID: tok.ID, Scopes: tok.Scopes}, nil
}

// findToken returns the personal access token row of digest, from the
// identity cache when it holds it. The row is shared: read-only.
func (a *Authenticator) findToken(ctx context.Context, digest string) (*models.PersonalAccessToken, error) {
	e, t, use := a.cache.lookup(ctx, digest)
	if e != nil && e.pat != nil {
		return e.pat, nil
	}
	tok, err := a.store.FindTokenByDigest(ctx, digest)
	if err == nil && use && cacheable(tok.User) {
		a.cache.store(t, &cachedToken{pat: tok})
	}
	return tok, err
}

// cacheable reports whether a credential row of user u may be kept in the
// identity cache: only an active user's. A refused user's row is read
// again on every request, so the request after a reactivation commits
// already passes (no wait for the change notification), and a blocked
// user's requests cost what they always did.
func cacheable(u *models.User) bool {
	return u != nil && u.State == models.UserActive
}

// UserAllowed returns a UserForbidden *Error for users that may not use the
// API (blocked or deactivated), with GitLab's wording.
func UserAllowed(u *models.User) error {
	switch u.State {
	case models.UserActive:
		return nil
	case models.UserBlocked:
		return &Error{Kind: UserForbidden, Presented: true, Reason: "Your account has been blocked. Ask an administrator to unblock it."}
	case models.UserDeactivated:
		return &Error{Kind: UserForbidden, Presented: true, Reason: "Your account has been deactivated. Please log back in from a web browser to reactivate your account."}
	default:
		return &Error{Kind: UserForbidden, Presented: true, Reason: "Your account is not active."}
	}
}

// markUsed queues a last_used_at write when this process has not queued one
// for the token within LastUsedInterval. It never blocks the request: when
// the queue is full the write is skipped (a later request will retry).
func (a *Authenticator) markUsed(id int64, now time.Time) {
	a.mu.Lock()
	last, ok := a.touched[id]
	if ok && now.Sub(last) < LastUsedInterval {
		a.mu.Unlock()
		return
	}
	a.touched[id] = now
	if len(a.touched) > 100_000 { // bound memory: forget old entries
		for k, v := range a.touched {
			if now.Sub(v) >= LastUsedInterval {
				delete(a.touched, k)
			}
		}
	}
	a.mu.Unlock()
	select {
	case a.queue <- touch{id: id, at: now}:
	default:
		a.mu.Lock()
		delete(a.touched, id)
		a.mu.Unlock()
	}
}

// Run writes queued last_used_at updates until ctx is done, then drains
// what is already queued. Start it once per process.
func (a *Authenticator) Run(ctx context.Context) {
	for {
		select {
		case t := <-a.queue:
			a.write(context.WithoutCancel(ctx), t)
		case <-ctx.Done():
			for {
				select {
				case t := <-a.queue:
					a.write(context.WithoutCancel(ctx), t)
				default:
					return
				}
			}
		}
	}
}

func (a *Authenticator) write(ctx context.Context, t touch) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := a.store.TouchTokenLastUsed(ctx, t.id, t.at); err != nil {
		a.logger.WarnContext(ctx, "update token last_used_at", "token_id", t.id, "error", err)
	}
}
