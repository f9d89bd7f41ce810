package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"gitlab.com/glmcp/glmcp/services/store"
)

// env is an opened, migrated store and the instance secret.
type env struct {
	store    *store.Store
	secret   string
	embedded bool
	dsn      string
}

func (e *env) close() { _ = e.store.Close() }

func (a *app) logger() *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(a.cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if a.cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(a.stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(a.stderr, opts))
}

// openEnv opens and migrates the configured store and settles the secret.
func (a *app) openEnv(ctx context.Context, logger *slog.Logger) (*env, error) {
	e := &env{dsn: a.cfg.DatabaseURL, secret: a.cfg.Secret}
	if e.dsn == "" {
		e.embedded = true
		if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
		e.dsn = filepath.Join(a.cfg.DataDir, "glmcp.db")
	}
	if e.secret == "" {
		if !e.embedded {
			return nil, errors.New("GLMCP_SECRET is required with PostgreSQL: every instance sharing the database must use the same secret (at least 32 characters)")
		}
		s, err := loadOrCreateSecret(filepath.Join(a.cfg.DataDir, "secret"))
		if err != nil {
			return nil, err
		}
		e.secret = s
	}
	st, err := store.Open(ctx, e.dsn, store.Options{Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := st.Migrate(ctx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("migrate store: %w", err)
	}
	e.store = st
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
