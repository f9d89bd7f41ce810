package store

import (
	"context"
	"errors"
	"fmt"
)

// EnsureSetting returns the stored value of key, storing candidate first
// when the key is new. Concurrent callers (instances starting together)
// all get the one value that was stored first.
func (s *Store) EnsureSetting(ctx context.Context, key, candidate string) (string, error) {
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
