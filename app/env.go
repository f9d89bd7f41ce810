package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/codeindex"
	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
	"gitlab.com/glmcp/glmcp/services/store"
)

// Env is an opened, migrated store and the instance secret.
type Env struct {
	Store  *store.Store
	Secret string
	// Tokens is the personal access token format.
	Tokens *auth.TokenFormat
	// Embedded is set for the SQLite store under the data directory.
	Embedded bool
	// DSN is the database URL, or the SQLite file path.
	DSN string
	// Repositories holds the projects' git repositories.
	Repositories *repository.Storage
	// CodeIndex keeps semantic_search's index of the default branches
	// current (services/codeindex).
	CodeIndex *codeindex.Indexer
}

// Close closes the store and releases idle repositories.
func (e *Env) Close() error {
	if e.CodeIndex != nil {
		e.CodeIndex.Close()
	}
	if e.Repositories != nil {
		e.Repositories.Close()
	}
	return e.Store.Close()
}

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

// secretSetting is the glmcp_settings key of the generated instance secret.
const secretSetting = "instance_secret"

// OpenEnv opens and migrates the configured store and settles the instance
// secret: GLMCP_SECRET when set (it must then be the same on every
// instance, and equal to a GitLab instance's secret for its token digests to
// verify here); otherwise one generated on first start and kept in the
// database, so every instance sharing it agrees and tokens survive restarts.
//
// The database keeps a fingerprint of the secret it was set up with;
// OpenEnv refuses a different one (*SecretMismatchError): tokens minted with
// it would never verify, and tokens already handed out would stop working.
// RotateSecret changes it deliberately.
func OpenEnv(ctx context.Context, cfg *Config, logger *slog.Logger) (*Env, error) {
	e, err := openEnv(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	if err := checkSecret(ctx, e); err != nil {
		_ = e.Close()
		return nil, err
	}
	return e, nil
}

// openEnv is OpenEnv without the fingerprint check.
func openEnv(ctx context.Context, cfg *Config, logger *slog.Logger) (*Env, error) {
	// git is the repositories' engine: found and checked before anything
	// is created ("glmcp needs git ≥ 2.39 on PATH: …").
	git, err := gitcmd.New(gitcmd.Options{MaxProcesses: cfg.GitMaxProcesses, Logger: logger})
	if err != nil {
		return nil, err
	}
	e := &Env{DSN: cfg.DatabaseURL, Secret: cfg.Secret, Tokens: cfg.TokenFormat()}
	reposPath := cfg.RepositoriesPath
	if e.DSN == "" {
		e.Embedded = true
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
		e.DSN = filepath.Join(cfg.DataDir, "glmcp.db")
		if reposPath == "" {
			reposPath = filepath.Join(cfg.DataDir, "repositories")
			if err := os.MkdirAll(reposPath, 0o700); err != nil {
				return nil, fmt.Errorf("create repositories directory: %w", err)
			}
		}
	}
	repos, err := repository.OpenStorageWith(reposPath, repository.StorageOptions{Git: git})
	if err != nil {
		return nil, fmt.Errorf("GLMCP_REPOSITORIES_PATH: %w", err)
	}
	e.Repositories = repos
	repos.Housekeeping().SetLogger(logger)
	st, err := store.Open(ctx, e.DSN, store.Options{Logger: logger, MaxOpenConns: cfg.DBMaxConns, Repositories: repos,
		StatementTimeout: cfg.DBStatementTimeout, AcquireTimeout: cfg.DBAcquireTimeout})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := st.Migrate(ctx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("migrate store: %w", err)
	}
	if e.Secret == "" {
		if e.Secret, err = generatedSecret(ctx, st); err != nil {
			_ = st.Close()
			return nil, err
		}
	}
	// What a crash left in the repositories (stale locks, temporary
	// files, directories that are no repository) is tidied meanwhile.
	ids, err := st.Projects.ProjectIDs(ctx)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	repos.RecoverInBackground(ids, logger)
	if n, err := st.Projects.EnsureRepositories(ctx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("create missing repositories: %w", err)
	} else if n > 0 && logger != nil {
		logger.Info("created the git repositories of existing projects", "count", n, "path", repos.Root())
	}
	e.Store = st
	e.CodeIndex = codeindex.New(codeIndexStore{st.CodeIndex, st.Projects}, repos, logger)
	return e, nil
}

// generatedSecret returns the instance secret kept in the database,
// generating it the first time.
func generatedSecret(ctx context.Context, st *store.Store) (string, error) {
	buf := make([]byte, 48)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("generate secret: %w", err)
	}
	s, err := st.Settings.EnsureSetting(ctx, secretSetting, base64.RawURLEncoding.EncodeToString(buf))
	if err != nil {
		return "", fmt.Errorf("instance secret: %w", err)
	}
	if len(s) < 32 {
		return "", fmt.Errorf("instance secret in glmcp_settings: must hold at least 32 characters")
	}
	return s, nil
}
