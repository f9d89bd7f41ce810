package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

// LastUsedInterval is how stale last_used_at must be before
// TouchTokenLastUsed writes it again (GitLab's rule: at most every 10
// minutes per token).
const LastUsedInterval = 10 * time.Minute

// CreateToken inserts t (its TokenDigest, never the token) and fills its ID
// and timestamps. A digest already stored is models.ErrConflict; a UserID
// that does not exist, or an empty digest, is models.ErrInvalidInput.
func (s *Users) CreateToken(ctx context.Context, t *models.PersonalAccessToken) error {
	if strings.TrimSpace(t.TokenDigest) == "" {
		return fmt.Errorf("create token %q: empty digest: %w", t.Name, models.ErrInvalidInput)
	}
	if t.Scopes == nil {
		t.Scopes = models.StringList{}
	}
	if t.ExpiresAt != nil {
		// A date: keep the day, drop the time (PostgreSQL's date column does
		// the same; SQLite would keep the time).
		e := t.ExpiresAt.UTC()
		day := time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, time.UTC)
		t.ExpiresAt = &day
	}
	t.ID = 0
	if err := s.conn(ctx).Omit("User").Create(t).Error; err != nil {
		return fmt.Errorf("create token %q: %w", t.Name, translate(err))
	}
	return nil
}

// FindTokenByDigest returns the token whose digest is digest, with its User
// loaded by the same query (one round trip: this runs on every request).
// Revoked and expired tokens are returned too; judging them is the caller's
// business. An unknown digest is models.ErrNotFound.
func (s *Users) FindTokenByDigest(ctx context.Context, digest string) (*models.PersonalAccessToken, error) {
	var t models.PersonalAccessToken
	err := s.conn(ctx).InnerJoins("User").
		Where(`"personal_access_tokens"."token_digest" = ?`, digest).
		Take(&t).Error
	if err != nil {
		// The digest is a credential: not in the message.
		return nil, fmt.Errorf("find token by digest: %w", translate(err))
	}
	return &t, nil
}

// ListTokens returns the tokens of the user with userID, or of every user
// when userID is nil, ordered by id, each with its User loaded.
func (s *Users) ListTokens(ctx context.Context, userID *int64) ([]models.PersonalAccessToken, error) {
	tokens := []models.PersonalAccessToken{}
	q := s.conn(ctx).InnerJoins("User").Order(`"personal_access_tokens"."id"`)
	if userID != nil {
		q = q.Where(`"personal_access_tokens"."user_id" = ?`, *userID)
	}
	if err := q.Find(&tokens).Error; err != nil {
		return nil, fmt.Errorf("list tokens: %w", translate(err))
	}
	return tokens, nil
}

// RevokeToken marks the token with id revoked. Revoking a revoked token
// succeeds; an unknown id is models.ErrNotFound.
func (s *Users) RevokeToken(ctx context.Context, id int64) error {
	res := s.conn(ctx).Model(&models.PersonalAccessToken{}).
		Where("id = ?", id).
		Updates(map[string]any{"revoked": true, "updated_at": s.clock()})
	if res.Error != nil {
		return fmt.Errorf("revoke token %d: %w", id, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("revoke token %d: %w", id, models.ErrNotFound)
	}
	return nil
}

// RevokeAllTokens marks every personal access token revoked and returns
// how many were not revoked before (used when the instance secret
// changes: their digests can never verify again).
func (s *Users) RevokeAllTokens(ctx context.Context) (int64, error) {
	res := s.conn(ctx).Model(&models.PersonalAccessToken{}).
		Where("revoked = ?", false).
		Updates(map[string]any{"revoked": true, "updated_at": s.clock()})
	if res.Error != nil {
		return 0, fmt.Errorf("revoke all tokens: %w", translate(res.Error))
	}
	return res.RowsAffected, nil
}

// TouchTokenLastUsed sets last_used_at of the token with id to at, unless
// it was set less than LastUsedInterval before at. The rule is part of the
// UPDATE's WHERE clause, so instances racing to record the same use write
// once. Nothing to update (recently touched, or no such token) is not an
// error.
func (s *Users) TouchTokenLastUsed(ctx context.Context, id int64, at time.Time) error {
	at = at.UTC().Truncate(time.Microsecond)
	err := s.conn(ctx).Model(&models.PersonalAccessToken{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, at.Add(-LastUsedInterval)).
		UpdateColumn("last_used_at", at).Error
	if err != nil {
		return fmt.Errorf("touch token %d: %w", id, translate(err))
	}
	return nil
}
