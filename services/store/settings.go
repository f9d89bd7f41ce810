package store

import (
	"context"
	"errors"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// EnsureSetting returns the stored value of key, storing candidate first
// when the key is new. Concurrent callers (instances starting together)
// all get the one value that was stored first.
func (s *Settings) EnsureSetting(ctx context.Context, key, candidate string) (string, error) {
	if key == "" || candidate == "" {
		return "", errors.New("ensure setting: empty key or value")
	}
	db := s.conn(ctx)
	if err := db.Exec(`INSERT INTO glmcp_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, candidate).Error; err != nil {
		return "", fmt.Errorf("ensure setting %q: %w", key, translate(err))
	}
	var value string
	if err := db.Raw(`SELECT value FROM glmcp_settings WHERE key = ?`, key).Scan(&value).Error; err != nil {
		return "", fmt.Errorf("read setting %q: %w", key, translate(err))
	}
	return value, nil
}

// ReplaceSetting sets key to value if it currently holds old (a
// compare-and-swap, so two rotations racing cannot both win). A key that
// is missing or holds something else is models.ErrConflict.
func (s *Settings) ReplaceSetting(ctx context.Context, key, old, value string) error {
	if key == "" || value == "" {
		return errors.New("replace setting: empty key or value")
	}
	res := s.conn(ctx).Exec(`UPDATE glmcp_settings SET value = ? WHERE key = ? AND value = ?`, value, key, old)
	if res.Error != nil {
		return fmt.Errorf("replace setting %q: %w", key, translate(res.Error))
	}
	if res.RowsAffected != 1 {
		return fmt.Errorf("replace setting %q: it changed meanwhile: %w", key, models.ErrConflict)
	}
	return nil
}
