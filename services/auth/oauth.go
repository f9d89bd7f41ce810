package auth

import (
	"context"
	"errors"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth/jwtauth"
)

// UserStore finds the user an access token names.
type UserStore interface {
	FindUserByID(ctx context.Context, id int64) (*models.User, error)
	FindUserByUsername(ctx context.Context, username string) (*models.User, error)
}

// OAuth authenticates JWT access tokens (RFC 9068) from the configured
// authorization server and maps them to glmcp users.
type OAuth struct {
	verifier *jwtauth.Verifier
	users    UserStore
}

// NewOAuth returns an OAuth authenticator.
func NewOAuth(v *jwtauth.Verifier, users UserStore) (*OAuth, error) {
	if v == nil || users == nil {
		return nil, errors.New("new oauth: verifier and user store are required")
	}
	return &OAuth{verifier: v, users: users}, nil
}

// LooksLikeJWT reports whether raw is shaped like a JWT (and so is not a
// personal access token).
func (o *OAuth) LooksLikeJWT(raw string) bool { return jwtauth.LooksLikeJWT(raw) }

// Authenticate verifies raw for audience (the endpoint's canonical URL) and
// returns the identity of the user it names. Every token failure is an
// Unauthenticated *Error whose reason carries no key material; an unknown
// user is too, a blocked or deactivated one is UserForbidden.
func (o *OAuth) Authenticate(ctx context.Context, raw, audience string) (*models.Identity, error) {
	claims, err := o.verifier.Verify(ctx, raw, audience)
	if err != nil {
		var te *jwtauth.TokenError
		if errors.As(err, &te) {
			return nil, unauthenticated(JWTReason(te.Reason))
		}
		return nil, fmt.Errorf("verify access token: %w", err)
	}
	var u *models.User
	if claims.Username != "" {
		u, err = o.users.FindUserByUsername(ctx, claims.Username)
	} else {
		u, err = o.users.FindUserByID(ctx, claims.UserID)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, unauthenticated(reasonJWTNoUser)
	}
	if err != nil {
		return nil, fmt.Errorf("find token user: %w", err)
	}
	if err := UserAllowed(u); err != nil {
		return &models.Identity{User: u}, err
	}
	return &models.Identity{User: u, Method: models.MethodOAuth, Scopes: claims.Scopes}, nil
}

// reasonJWTNoUser refuses a valid JWT whose user claim names nobody here.
const reasonJWTNoUser = "OAuth access token (JWT) names a user this server does not know. " +
	"Sign in with an account that exists here (usernames must match GitLab's)."

// JWTReason is the error_description of a JWT access token that fails
// verification for reason (jwtauth's words: "wrong audience", "token
// expired", …): the credential, what is wrong and what to do.
func JWTReason(reason string) string {
	return "OAuth access token (JWT) refused: " + reason + ". Sign in again to get a new one."
}
