package store_test

import (
	"context"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// Ensure OAuth access tokens are stored with GitLab's columns, found by
// digest with their owner, revoked once, and that bad rows change nothing.
func TestStore_OAuthTokens(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustCreateUser(t, s, "alice")
		app := int64(12)
		tok := &models.OAuthAccessToken{ResourceOwnerID: &alice.ID, ApplicationID: &app, Token: "sha-a", ExpiresIn: intp(7200), Scopes: "mcp api"}
		wantErr(t, "CreateOAuthToken", s.Users.CreateOAuthToken(ctx, tok), nil)
		if tok.ID == 0 || tok.CreatedAt.IsZero() || tok.OrganizationID != 1 {
			t.Fatalf("created token = %+v, want id, created_at and organization 1", tok)
		}
		wantErr(t, "CreateOAuthToken(no owner)", s.Users.CreateOAuthToken(ctx, &models.OAuthAccessToken{Token: "sha-cc", Scopes: "api"}), nil)

		wantErr(t, "CreateOAuthToken(same digest)", s.Users.CreateOAuthToken(ctx, &models.OAuthAccessToken{ResourceOwnerID: &alice.ID, Token: "sha-a"}), models.ErrConflict)
		missing := int64(999)
		wantErr(t, "CreateOAuthToken(unknown owner)", s.Users.CreateOAuthToken(ctx, &models.OAuthAccessToken{ResourceOwnerID: &missing, Token: "sha-x"}), models.ErrInvalidInput)
		wantErr(t, "CreateOAuthToken(empty digest)", s.Users.CreateOAuthToken(ctx, &models.OAuthAccessToken{ResourceOwnerID: &alice.ID}), models.ErrInvalidInput)
		wantErr(t, "CreateOAuthToken(expires_in 0)", s.Users.CreateOAuthToken(ctx, &models.OAuthAccessToken{ResourceOwnerID: &alice.ID, Token: "sha-y", ExpiresIn: intp(0)}), models.ErrInvalidInput)
		if n := countRows(t, s, "oauth_access_tokens"); n != 2 {
			t.Fatalf("%d rows after refused inserts, want 2", n)
		}

		got, err := s.Users.FindOAuthTokenByDigest(ctx, "sha-a")
		if err != nil {
			t.Fatalf("FindOAuthTokenByDigest: %v", err)
		}
		if got.ID != tok.ID || got.User == nil || got.User.Username != "alice" || got.Scopes != "mcp api" ||
			got.ExpiresIn == nil || *got.ExpiresIn != 7200 || got.ApplicationID == nil || *got.ApplicationID != 12 || got.RevokedAt != nil {
			t.Fatalf("FindOAuthTokenByDigest = %+v (user %+v)", got, got.User)
		}
		if !got.CreatedAt.Equal(tok.CreatedAt) {
			t.Errorf("created_at = %v, want %v", got.CreatedAt, tok.CreatedAt)
		}
		cc, err := s.Users.FindOAuthTokenByDigest(ctx, "sha-cc")
		if err != nil || cc.User != nil || cc.ResourceOwnerID != nil {
			t.Fatalf("token without owner = %+v, %v; want no user", cc, err)
		}
		_, err = s.Users.FindOAuthTokenByDigest(ctx, "nope")
		wantErr(t, "FindOAuthTokenByDigest(unknown)", err, models.ErrNotFound)

		wantErr(t, "RevokeOAuthToken", s.Users.RevokeOAuthToken(ctx, tok.ID), nil)
		first, _ := s.Users.FindOAuthTokenByDigest(ctx, "sha-a")
		if first.RevokedAt == nil || !first.Revoked(time.Now().Add(time.Second)) {
			t.Fatalf("revoked_at = %v after RevokeOAuthToken", first.RevokedAt)
		}
		time.Sleep(2 * time.Millisecond)
		wantErr(t, "RevokeOAuthToken again", s.Users.RevokeOAuthToken(ctx, tok.ID), nil)
		again, _ := s.Users.FindOAuthTokenByDigest(ctx, "sha-a")
		if !again.RevokedAt.Equal(*first.RevokedAt) {
			t.Errorf("revoked_at moved from %v to %v on a second revocation", first.RevokedAt, again.RevokedAt)
		}
		wantErr(t, "RevokeOAuthToken(unknown)", s.Users.RevokeOAuthToken(ctx, 999), models.ErrNotFound)
	})
}

func intp(n int) *int { return &n }
