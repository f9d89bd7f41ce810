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

// Authenticator verifies personal access tokens.
type Authenticator struct {
	store  TokenStore
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

// NewAuthenticator returns an Authenticator. secret is the instance secret
// (at least 32 characters); now defaults to time.Now.
func NewAuthenticator(store TokenStore, secret string, now func() time.Time, logger *slog.Logger) (*Authenticator, error) {
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
	return &Authenticator{
		store: store, secret: secret, now: now, logger: logger,
		touched: make(map[int64]time.Time),
		queue:   make(chan touch, 1024),
	}, nil
}

// Authenticate verifies a personal access token. Malformed, unknown,
// revoked and expired tokens give an Unauthenticated *Error; a blocked or
// deactivated user gives UserForbidden. Store failures are returned wrapped.
func (a *Authenticator) Authenticate(ctx context.Context, raw string) (*Identity, error) {
	if !WellFormed(raw) {
		return nil, unauthenticated("Token is malformed")
	}
	tok, err := a.store.FindTokenByDigest(ctx, Digest(raw, a.secret))
	if errors.Is(err, models.ErrNotFound) {
		return nil, unauthenticated("Token is invalid")
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate token: %w", err)
	}
	now := a.now()
	switch {
	case tok.Revoked:
		return nil, unauthenticated("Token was revoked. You have to re-authorize from the user.")
	case tok.Expired(now):
		return nil, unauthenticated("Token has expired.")
	case tok.User == nil:
		return nil, unauthenticated("Token is invalid")
	}
	if err := UserAllowed(tok.User); err != nil {
		return nil, err
	}
	a.markUsed(tok.ID, now)
	return &Identity{User: tok.User, Method: MethodPAT, TokenID: tok.ID, Scopes: tok.Scopes}, nil
}

// UserAllowed returns a UserForbidden *Error for users that may not use the
// API (blocked or deactivated), with GitLab's wording.
func UserAllowed(u *models.User) error {
	switch u.State {
	case models.UserActive:
		return nil
	case models.UserBlocked:
		return &Error{Kind: UserForbidden, Presented: true, Reason: "Your account has been blocked."}
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
