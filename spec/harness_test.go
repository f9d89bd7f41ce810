package spec

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/app"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Endpoint paths.
const (
	cePath = "/api/v4/mcp"
	eePath = "/api/v4/orbit/mcp"
)

// harness is one running glmcp on its own database.
type harness struct {
	URL    string // base URL, e.g. http://127.0.0.1:PORT
	CE, EE string // endpoint URLs
	Cfg    *app.Config
	Env    *app.Env
	Server *app.Server
	HTTP   *httptest.Server
	// Tokens are fresh demo tokens by username (root, alice, bob, carol,
	// dave), scopes api, mcp, mcp_orbit.
	Tokens map[string]string
}

// option adjusts the configuration before the server starts.
type option func(*app.Config)

// withEE serves the EE (orbit) group too.
func withEE() option { return func(c *app.Config) { c.Edition = models.EditionEE } }

// withDSN uses the given database (to share one between instances).
func withDSN(dsn string) option { return func(c *app.Config) { c.DatabaseURL = dsn } }

// testDSN returns a fresh PostgreSQL database URL when
// GLMCP_TEST_DATABASE_URL is set, and "" (embedded SQLite) otherwise;
// under CI=true PostgreSQL is required.
func testDSN(t testing.TB) string {
	t.Helper()
	if usePostgres(t) {
		return storetest.PostgresDSN(t)
	}
	return ""
}

// usePostgres reports whether the specs run on PostgreSQL
// (GLMCP_TEST_DATABASE_URL is set); under CI=true it must be.
func usePostgres(t testing.TB) bool {
	t.Helper()
	if os.Getenv(storetest.EnvDatabaseURL) != "" {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set and CI=true: PostgreSQL tests must run in CI", storetest.EnvDatabaseURL)
	}
	return false
}

// unsetDSN marks a configuration whose database no option chose.
const unsetDSN = "\x00unset"

// startServer starts glmcp with the demo world seeded, on a fresh
// database, served by httptest on 127.0.0.1. Everything is torn down when
// the test ends. Its log is discarded (SPEC_LOG=1 with -v shows it).
func startServer(t testing.TB, opts ...option) *harness {
	t.Helper()
	return startServerLogged(t, nil, opts...)
}

// startServerLogged is startServer with the server's info-level JSON log
// written to w (nil: discarded).
func startServerLogged(t testing.TB, w io.Writer, opts ...option) *harness {
	t.Helper()
	cfg := app.Defaults()
	cfg.DatabaseURL = unsetDSN
	own := t.TempDir() // the data directory, unless an option shares another's
	cfg.DataDir = own
	cfg.RepositoriesPath = filepath.Join(cfg.DataDir, "repositories")
	if err := os.MkdirAll(cfg.RepositoriesPath, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg.Secret = "spec-secret-0123456789abcdefghijklmnopqrstuvwxyz"
	cfg.RateLimit = "0"
	cfg.AuthFailureLimit = "0"
	cfg.LogLevel = "error"
	for _, o := range opts {
		o(&cfg)
	}
	// A store named by an option (withDSN, withStoreOf) is shared with
	// another instance and seeded in place; otherwise the server gets a
	// copy of the seeded world of its configuration: on PostgreSQL when the
	// tests have one, on SQLite when withDSN("") asks for it.
	var world *seededWorld
	if cfg.DatabaseURL == unsetDSN || (cfg.DatabaseURL == "" && cfg.DataDir == own) {
		postgres := cfg.DatabaseURL == unsetDSN && usePostgres(t)
		cfg.DatabaseURL = ""
		w, err := seededWorldFor(&cfg, postgres)
		if err != nil {
			t.Fatalf("seeded world: %v", err)
		}
		world = w
	}
	ts := httptest.NewUnstartedServer(nil)
	cfg.Listen = ts.Listener.Addr().String()
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + cfg.Listen
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	ctx := context.Background()
	switch {
	case w != nil:
		cfg.LogLevel, cfg.LogFormat = "info", "json"
	case testing.Verbose() && os.Getenv("SPEC_LOG") != "":
		w = os.Stderr
	default:
		w = io.Discard
	}
	logger := app.NewLogger(&cfg, w)
	var demo []app.DemoToken
	if world != nil {
		cfg.DatabaseURL, demo = world.install(t, &cfg)
	}
	// A store named by an option is seeded in place, with the default
	// database deadlines: short ones (withDBDeadlines) are the server's
	// under test, and seeding on a loaded machine may take longer than
	// they allow, so it then goes through an env of its own.
	defaults := app.Defaults()
	shortDeadlines := cfg.DBStatementTimeout != defaults.DBStatementTimeout || cfg.DBAcquireTimeout != defaults.DBAcquireTimeout
	if world == nil && shortDeadlines {
		seedCfg := cfg
		seedCfg.DBStatementTimeout, seedCfg.DBAcquireTimeout = defaults.DBStatementTimeout, defaults.DBAcquireTimeout
		seedEnv, err := app.OpenEnv(ctx, &seedCfg, logger)
		if err != nil {
			t.Fatalf("open env to seed: %v", err)
		}
		demo, err = app.SeedDemo(ctx, seedEnv)
		_ = seedEnv.Close()
		if err != nil {
			t.Fatalf("seed demo: %v", err)
		}
	}
	env, err := app.OpenEnv(ctx, &cfg, logger)
	if err != nil {
		t.Fatalf("open env: %v", err)
	}
	t.Cleanup(func() { _ = env.Close() })
	if world == nil && !shortDeadlines {
		if demo, err = app.SeedDemo(ctx, env); err != nil {
			t.Fatalf("seed demo: %v", err)
		}
	}
	srv, err := app.New(ctx, &cfg, env, logger)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	srv.Start(ctx)
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(func() {
		srv.BeginShutdown()
		ts.CloseClientConnections()
		ts.Close()
		srv.Stop()
	})
	select {
	case <-srv.Listening():
	case <-time.After(10 * time.Second):
		t.Fatal("change listener did not start within 10s")
	}
	h := &harness{URL: ts.URL, CE: ts.URL + cePath, EE: ts.URL + eePath, Cfg: &cfg, Env: env, Server: srv, HTTP: ts,
		Tokens: map[string]string{}}
	for _, d := range demo {
		h.Tokens[d.Username] = d.Token
	}
	return h
}

// auth returns headers carrying token as a bearer credential.
func auth(token string) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+token)
	return h
}
