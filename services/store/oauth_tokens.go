package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateOAuthToken inserts t (its Token digest, never the token) and fills
// its ID and CreatedAt (when zero). A digest already stored is
// models.ErrConflict; an empty digest, a ResourceOwnerID that does not
// exist or an ExpiresIn ≤ 0 is models.ErrInvalidInput.
func (s *Users) CreateOAuthToken(ctx context.Context, t *models.OAuthAccessToken) error {
	if strings.TrimSpace(t.Token) == "" {
		return fmt.Errorf("create oauth token: empty digest: %w", models.ErrInvalidInput)
	}
	if t.OrganizationID == 0 {
		t.OrganizationID = 1
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.clock()
	}
	t.ID = 0
	if err := s.conn(ctx).Omit("User").Create(t).Error; err != nil {
		return fmt.Errorf("create oauth token: %w", translate(err))
	}
	return nil
}

// FindOAuthTokenByDigest returns the token whose token column is digest,
// with its resource owner loaded by the same query (User is nil for a
// token that names no user). Revoked and expired tokens are returned too.
// An unknown digest is models.ErrNotFound.
func (s *Users) FindOAuthTokenByDigest(ctx context.Context, digest string) (*models.OAuthAccessToken, error) {
	var t models.OAuthAccessToken
	err := s.conn(ctx).Joins("User").
		Where(`"oauth_access_tokens"."token" = ?`, digest).
		Take(&t).Error
	if err != nil {
		// The digest is a credential: not in the message.
		return nil, fmt.Errorf("find oauth token by digest: %w", translate(err))
	}
	if t.User != nil && t.User.ID == 0 { // LEFT JOIN found no owner
		t.User = nil
	}
	return &t, nil
}

// RevokeOAuthToken sets revoked_at of the token with id to now, unless it
// is already revoked (the first revocation time stays). An unknown id is
// models.ErrNotFound.
func (s *Users) RevokeOAuthToken(ctx context.Context, id int64) error {
	db := s.conn(ctx)
	res := db.Model(&models.OAuthAccessToken{}).
		Where("id = ? AND revoked_at IS NULL", id).
		Update("revoked_at", s.clock())
	if res.Error != nil {
		return fmt.Errorf("revoke oauth token %d: %w", id, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		var n int64
		if err := db.Model(&models.OAuthAccessToken{}).Where("id = ?", id).Count(&n).Error; err != nil {
			return fmt.Errorf("revoke oauth token %d: %w", id, translate(err))
		}
		if n == 0 {
			return fmt.Errorf("revoke oauth token %d: %w", id, models.ErrNotFound)
		}
	}
	return nil
}
