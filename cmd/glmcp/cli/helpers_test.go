package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/auth"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// testSecret is the instance secret of the PostgreSQL backend (the embedded
// store generates its own under the data directory).
const testSecret = "cli-test-secret-0123456789abcdefghijklmnop"

// run executes one command line of glmcp (the zero Build).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return Run(ctx, Build{}, args, getenv, stdout, stderr)
}

// backend is one store the CLI runs against: the embedded SQLite store in a
// temp data directory, or a fresh PostgreSQL database.
type backend struct {
	name    string
	dataDir string
	dsn     string // PostgreSQL URL; empty for the embedded store
	env     map[string]string
}

// repositories returns the directory holding the backend's git
// repositories: the embedded store's default, or GLMCP_REPOSITORIES_PATH.
func (b *backend) repositories() string {
	if p := b.env["GLMCP_REPOSITORIES_PATH"]; p != "" {
		return p
	}
	return filepath.Join(b.dataDir, "repositories")
}

// eachBackend runs fn against the embedded store and, when
// GLMCP_TEST_DATABASE_URL is set, against a fresh PostgreSQL database (the
// PostgreSQL leg is skipped without it, and fails under CI=true). The
// PostgreSQL database is already migrated (a copy of a template): every
// command migrates at start, and doing it for real in every test was most
// of this package's time. eachEmptyBackend gives an empty one.
func eachBackend(t *testing.T, fn func(t *testing.T, b *backend)) {
	t.Helper()
	eachBackendOf(t, storetest.MigratedPostgresDSN, fn)
}

// eachEmptyBackend is eachBackend on an empty PostgreSQL database.
func eachEmptyBackend(t *testing.T, fn func(t *testing.T, b *backend)) {
	t.Helper()
	eachBackendOf(t, storetest.PostgresDSN, fn)
}

func eachBackendOf(t *testing.T, postgres func(testing.TB) string, fn func(t *testing.T, b *backend)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		fn(t, &backend{name: "sqlite", dataDir: dir, env: map[string]string{
			"GLMCP_DATA_DIR": dir, "GLMCP_LOG_LEVEL": "warn",
		}})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := postgres(t)
		dir := t.TempDir()
		fn(t, &backend{name: "postgres", dataDir: dir, dsn: dsn, env: map[string]string{
			"GLMCP_DATA_DIR": dir, "GLMCP_DATABASE_URL": dsn, "GLMCP_SECRET": testSecret, "GLMCP_LOG_LEVEL": "warn",
			"GLMCP_REPOSITORIES_PATH": dir,
		}})
	})
}

// getenv returns the backend's environment plus extra (extra wins).
func (b *backend) getenv(extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return b.env[k]
	}
}

// run executes one command line and returns its stdout and stderr.
func (b *backend) run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return b.runEnv(t, nil, args...)
}

func (b *backend) runEnv(t *testing.T, extra map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := run(ctx, args, b.getenv(extra), &out, &errOut)
	return out.String(), errOut.String(), err
}

// mustRun executes a command that must succeed and returns its stdout.
func (b *backend) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := b.run(t, args...)
	if err != nil {
		t.Fatalf("glmcp %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// wantErr runs a command that must fail with an error containing every one
// of wants, and returns the error text.
func (b *backend) wantErr(t *testing.T, wants []string, args ...string) string {
	t.Helper()
	out, _, err := b.run(t, args...)
	if err == nil {
		t.Fatalf("glmcp %s: succeeded (stdout %q), want an error", strings.Join(args, " "), out)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("glmcp %s: error %q does not mention %q", strings.Join(args, " "), err, w)
		}
	}
	if out != "" {
		t.Errorf("glmcp %s: failed but printed %q on stdout", strings.Join(args, " "), out)
	}
	return err.Error()
}

// secret is the instance secret the CLI used.
func (b *backend) secret(t *testing.T) string {
	t.Helper()
	if b.dsn != "" {
		return testSecret
	}
	// The embedded store keeps its generated secret in glmcp_settings.
	var s string
	if err := b.store(t).DB().Raw(`SELECT value FROM glmcp_settings WHERE key = 'instance_secret'`).Scan(&s).Error; err != nil || len(s) < 32 {
		t.Fatalf("read generated secret: %q, %v", s, err)
	}
	return s
}

// store opens the backend's store for assertions; closed when t ends.
func (b *backend) store(t *testing.T) *store.Store {
	t.Helper()
	dsn := b.dsn
	if dsn == "" {
		dsn = filepath.Join(b.dataDir, "glmcp.db")
	}
	s, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// count returns the number of rows of model's table.
func count(t *testing.T, s *store.Store, model any) int64 {
	t.Helper()
	var n int64
	if err := s.DB().Model(model).Count(&n).Error; err != nil {
		t.Fatalf("count %T: %v", model, err)
	}
	return n
}

// authenticate checks a token the way the server does.
func authenticate(t *testing.T, s *store.Store, secret, token string) (*models.Identity, error) {
	t.Helper()
	a, err := auth.NewAuthenticator(s.Users, secret, nil, nil, auth.WithOAuthTokens(s.Users))
	if err != nil {
		t.Fatalf("new authenticator: %v", err)
	}
	return a.Authenticate(context.Background(), token)
}

// authKind returns the kind of an authentication failure (0 for other errors).
func authKind(err error) auth.Kind {
	var ae *auth.Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return 0
}

// createUser creates an active user through the CLI.
func (b *backend) createUser(t *testing.T, username string) {
	t.Helper()
	b.mustRun(t, "users", "create", "--username", username, "--email", username+"@example.com")
}

// findUser returns the stored user (fails the test when missing).
func findUser(t *testing.T, s *store.Store, username string) *models.User {
	t.Helper()
	u, err := s.Users.FindUserByUsername(context.Background(), username)
	if err != nil {
		t.Fatalf("find user %q: %v", username, err)
	}
	return u
}

// today is the current UTC date, as the CLI computes it.
func today() time.Time {
	now := time.Now().UTC()
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func readFileTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}
