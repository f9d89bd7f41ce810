package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
)

// KnownScopes are GitLab's personal access token scopes accepted here.
var KnownScopes = []string{
	models.ScopeAPI, models.ScopeReadAPI, models.ScopeMCP, models.ScopeMCPOrbit, models.ScopeAIWorkflows,
	"read_user", "read_repository", "write_repository", "ai_features", "self_rotate",
}

// Token lifetimes (GitLab's limits).
const (
	defaultTokenDays = 30
	maxTokenDays     = 365
)

// MintToken creates a personal access token for u and returns it in clear
// (the only time it exists in clear; the store keeps the digest).
// The token is in GitLab's versioned routable format, naming u.
func MintToken(ctx context.Context, e *Env, u *models.User, name string, scopes []string, expires *time.Time) (string, *models.PersonalAccessToken, error) {
	raw, err := e.Tokens.Generate(nil, u.ID)
	if err != nil {
		return "", nil, err
	}
	t := &models.PersonalAccessToken{
		UserID: u.ID, Name: name, TokenDigest: auth.Digest(raw, e.Secret),
		Scopes: models.StringList(scopes), ExpiresAt: expires,
	}
	if err := e.Store.Users.CreateToken(ctx, t); err != nil {
		return "", nil, fmt.Errorf("create token: %w", err)
	}
	return raw, t, nil
}

// ParseScopes validates a comma-separated scope list.
func ParseScopes(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(KnownScopes, p) {
			return nil, fmt.Errorf("unknown scope %q (known: %s)", p, strings.Join(KnownScopes, ", "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("at least one scope is required (e.g. --scopes mcp)")
	}
	return out, nil
}

// ParseExpiry validates an expiry date: after today (UTC) and at most
// maxTokenDays ahead; empty means defaultTokenDays from today.
func ParseExpiry(s string, now time.Time) (*time.Time, error) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if s == "" {
		d := today.AddDate(0, 0, defaultTokenDays)
		return &d, nil
	}
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, fmt.Errorf("expiry %q: want YYYY-MM-DD", s)
	}
	if !d.After(today) {
		return nil, fmt.Errorf("expiry %s: must be after today (%s)", s, today.Format("2006-01-02"))
	}
	if d.After(today.AddDate(0, 0, maxTokenDays)) {
		return nil, fmt.Errorf("expiry %s: at most %d days ahead (%s)", s, maxTokenDays, today.AddDate(0, 0, maxTokenDays).Format("2006-01-02"))
	}
	return &d, nil
}

// MintOAuthToken creates an OAuth access token owned by u, valid for
// expiresIn seconds from now, and returns it in clear (the store keeps
// its SHA-512 digest, as GitLab does).
func MintOAuthToken(ctx context.Context, e *Env, u *models.User, scopes []string, expiresIn int) (string, *models.OAuthAccessToken, error) {
	raw, err := auth.GenerateOAuthToken(nil)
	if err != nil {
		return "", nil, err
	}
	t := &models.OAuthAccessToken{
		ResourceOwnerID: &u.ID, Token: auth.OAuthDigest(raw),
		ExpiresIn: &expiresIn, Scopes: strings.Join(scopes, " "),
	}
	if err := e.Store.Users.CreateOAuthToken(ctx, t); err != nil {
		return "", nil, fmt.Errorf("create oauth token: %w", err)
	}
	return raw, t, nil
}
