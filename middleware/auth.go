package middleware

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"gitlab.com/glmcp/glmcp/middleware/ratelimit"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// TokenAuthenticator verifies one kind of bearer credential.
type TokenAuthenticator interface {
	Authenticate(ctx context.Context, raw string) (*models.Identity, error)
}

// JWTAuthenticator verifies OAuth access tokens bound to an audience.
type JWTAuthenticator interface {
	// LooksLikeJWT tells JWT-shaped tokens apart from personal access tokens.
	LooksLikeJWT(raw string) bool
	Authenticate(ctx context.Context, raw, audience string) (*models.Identity, error)
}

// AuthConfig configures RequireAuth for one route group.
type AuthConfig struct {
	PAT TokenAuthenticator
	// JWT is nil when OAuth is not configured.
	JWT JWTAuthenticator
	// Scopes are the scopes the group accepts.
	Scopes auth.GroupScopes
	// Audience is the group's canonical resource URL (JWT aud binding).
	Audience string
	// MetadataURL is the group's protected resource metadata URL, named in
	// every challenge; "" when no authorization server is configured (the
	// challenge then names none, and the body says which token to send).
	MetadataURL string
	// RequireEESeat refuses users without an EE seat (the orbit group).
	RequireEESeat bool
	// Failures, when set, budgets failed authentications per client
	// address: once spent, requests carrying a credential from that address
	// get 429 before any token is looked up (GitLab bans such addresses).
	Failures *ratelimit.Limiter
	Logger   *slog.Logger
}

// RequireAuth authenticates the caller from the credential [CredentialOf]
// reads (`Authorization: Bearer` or `PRIVATE-TOKEN`), checks the group's
// scopes and stores the identity in the request context. Failures are
// answered here, before any JSON-RPC work: 401 with a Bearer challenge, 403
// for forbidden users and missing scopes. A credential that fails — a token
// that does not authenticate, or an Authorization header of a scheme glmcp
// refuses (Basic) — spends one of the address's failed authentications.
func RequireAuth(cfg AuthConfig) gin.HandlerFunc {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		cred := CredentialOf(c.Request)
		if cred.Kind == NoCredential {
			WriteAuthError(c, cfg.MetadataURL, &auth.Error{Kind: auth.Unauthenticated})
			return
		}
		failKey := "authfail:" + c.ClientIP()
		if blocked, retry := cfg.Failures.Peek(ctx, failKey); blocked {
			ratelimit.Reject(c, cfg.Failures, retry)
			return
		}
		if cred.Kind == RefusedCredential {
			cfg.Failures.Take(ctx, failKey, ratelimit.Limit{}) // spend one failure
			// Not a bearer token at all: the challenge carries no error
			// code (RFC 6750 §3.1), the body says what to send.
			WriteAuthError(c, cfg.MetadataURL, &auth.Error{Kind: auth.Unauthenticated, Reason: refusedReason(cred)})
			return
		}
		id, err := cfg.verify(ctx, cred.Token)
		if err != nil {
			var ae *auth.Error
			if !errors.As(err, &ae) {
				r := &Refusal{Kind: RefusalInternal}
				if errors.Is(err, models.ErrStoreUnavailable) {
					r.Kind = RefusalStoreUnavailable // the store logs the outage
				} else {
					cfg.Logger.ErrorContext(ctx, "authenticate", "error", err, "request_id", Fields(ctx).RequestID)
				}
				Refuse(c, r)
				return
			}
			if id != nil && id.User != nil {
				Fields(ctx).UserID = id.User.ID
			}
			if ae.Kind == auth.Unauthenticated {
				cfg.Failures.Take(ctx, failKey, ratelimit.Limit{}) // spend one failure
			}
			WriteAuthError(c, cfg.MetadataURL, ae)
			return
		}
		Fields(ctx).UserID = id.User.ID
		c.Request = c.Request.WithContext(WithIdentity(ctx, id))
		c.Next()
	}
}

// seatReason refuses a user without an EE seat on the Orbit group.
const seatReason = "GitLab Orbit MCP server requires a GitLab Duo Enterprise seat; ask an administrator to assign one to your account."

// verify authenticates the bearer token raw for cfg's group: a JWT (when
// OAuth is on and raw looks like one, bound to the group's audience) or a
// personal or GitLab OAuth access token; then the group's scopes and, on
// the Orbit group, the user's EE seat. A refusal is an *auth.Error.
func (cfg AuthConfig) verify(ctx context.Context, raw string) (*models.Identity, error) {
	var (
		id  *models.Identity
		err error
	)
	if cfg.JWT != nil && cfg.JWT.LooksLikeJWT(raw) {
		id, err = cfg.JWT.Authenticate(ctx, raw, cfg.Audience)
	} else {
		id, err = cfg.PAT.Authenticate(ctx, raw)
	}
	if err != nil {
		return id, err
	}
	if err := cfg.Scopes.Authorize(id); err != nil {
		return id, err
	}
	if cfg.RequireEESeat && !id.User.EESeat {
		return id, &auth.Error{Kind: auth.UserForbidden, Presented: true, Reason: seatReason}
	}
	return id, nil
}

// authErrorName names a failure kind in the access log.
func authErrorName(k auth.Kind) string {
	switch k {
	case auth.UserForbidden:
		return "user_forbidden"
	case auth.InsufficientScope:
		return "insufficient_scope"
	}
	return "unauthenticated"
}

// NoOAuthHint is added to 401 bodies as "hint" when no authorization
// server is configured: a client cannot sign in, so the body says what to
// send instead.
const NoOAuthHint = "This server offers no OAuth sign-in. Send a GitLab personal access token " +
	"with the mcp scope as \"Authorization: Bearer TOKEN\" or " +
	"\"PRIVATE-TOKEN: TOKEN\"; create one in GitLab under User settings, Access tokens, or with \"glmcp tokens create\"."

// WriteAuthError answers an authentication failure with GitLab's status
// and body and an RFC 6750 / RFC 9728 challenge, and aborts the chain.
// With no metadataURL (no authorization server) the challenge names no
// metadata and a 401 body carries NoOAuthHint. A 401 for a request that
// presented no bearer token (none at all, or one of a refused scheme) has
// no error code in its challenge (RFC 6750 §3.1); its Reason, if any, is
// added to the body's message. A body not read yet is not read at all: the
// answer is sent at once and the connection closed after it.
func WriteAuthError(c *gin.Context, metadataURL string, e *auth.Error) {
	// Answered from the headers: the body (perhaps still dripping) is not
	// read, and the connection ends with the answer.
	CloseIfBodyUnread(c)
	f := Fields(c.Request.Context())
	f.AuthError, f.Reason = authErrorName(e.Kind), e.Reason
	if f.Reason == "" {
		f.Reason = "no credential"
		if e.Presented {
			f.Reason = "credential refused"
		}
	}
	switch e.Kind {
	case auth.InsufficientScope:
		c.Header("WWW-Authenticate", challengeInsufficientScope(metadataURL, e.Scope, e.Reason))
		c.JSON(http.StatusForbidden, gin.H{"error": "insufficient_scope", "error_description": e.Reason, "scope": e.Scope})
	case auth.UserForbidden:
		c.JSON(http.StatusForbidden, gin.H{"message": "403 Forbidden - " + e.Reason})
	default:
		code, desc := "", ""
		if e.Presented {
			code, desc = "invalid_token", e.Reason
		}
		c.Header("WWW-Authenticate", challenge401(metadataURL, code, desc))
		body := gin.H{"message": "401 Unauthorized"}
		if !e.Presented && e.Reason != "" {
			body["message"] = "401 Unauthorized - " + e.Reason
		}
		if e.Presented {
			body = gin.H{"error": "invalid_token", "error_description": e.Reason}
		}
		if metadataURL == "" {
			body["hint"] = NoOAuthHint
		}
		c.JSON(http.StatusUnauthorized, body)
	}
	c.Abort()
}
