package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"gitlab.com/glmcp/glmcp/services/store"
)

// Env is an opened, migrated store and the instance secret.
type Env struct {
	Store  *store.Store
	Secret string
	// Embedded is set for the SQLite store under the data directory.
	Embedded bool
	// DSN is the database URL, or the SQLite file path.
	DSN string
}

// Close closes the store.
func (e *Env) Close() error { return e.Store.Close() }

// NewLogger returns the configured slog logger writing to w.
func NewLogger(cfg *Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// OpenEnv opens and migrates the configured store and settles the secret:
// GLMCP_SECRET, or for the embedded store one generated on first start and
// kept beside it.
func OpenEnv(ctx context.Context, cfg *Config, logger *slog.Logger) (*Env, error) {
	e := &Env{DSN: cfg.DatabaseURL, Secret: cfg.Secret}
	if e.DSN == "" {
		e.Embedded = true
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
		e.DSN = filepath.Join(cfg.DataDir, "glmcp.db")
	}
	if e.Secret == "" {
		if !e.Embedded {
			return nil, errors.New("GLMCP_SECRET is required with PostgreSQL: every instance sharing the database must use the same secret (at least 32 characters)")
		}
		s, err := loadOrCreateSecret(filepath.Join(cfg.DataDir, "secret"))
		if err != nil {
			return nil, err
		}
		e.Secret = s
	}
	st, err := store.Open(ctx, e.DSN, store.Options{Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := st.Migrate(ctx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("migrate store: %w", err)
	}
	e.Store = st
	return e, nil
}

// loadOrCreateSecret keeps the embedded store's generated secret beside it,
// readable only by its owner, so tokens survive restarts.
func loadOrCreateSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) < 32 {
			return "", fmt.Errorf("secret file %s: must hold at least 32 characters", path)
		}
		return s, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read secret file: %w", err)
	}
	buf := make([]byte, 48)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("generate secret: %w", err)
	}
	s := base64.RawURLEncoding.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write secret file: %w", err)
	}
	return s, nil
}
