// Package storetest opens fresh, migrated stores for tests in any package.
//
// PostgreSQL comes from GLMCP_TEST_DATABASE_URL (for example
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable): every call
// creates its own database on that server (glmcp_test_<random>) and drops
// it when the test ends. Without the variable, PostgreSQL tests are skipped
// — unless CI=true, where they fail, so CI cannot silently run less.
// SQLite needs nothing: a file in the test's temp directory.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for CREATE/DROP DATABASE

	"gitlab.com/glmcp/glmcp/services/repository"
	"gitlab.com/glmcp/glmcp/services/store"
)

// EnvDatabaseURL names the variable holding the PostgreSQL server URL.
const EnvDatabaseURL = "GLMCP_TEST_DATABASE_URL"

// Open returns a migrated store: PostgreSQL when EnvDatabaseURL is set,
// SQLite otherwise. Every store made here creates its projects' git
// repositories in a temporary directory (Repositories).
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	if os.Getenv(EnvDatabaseURL) != "" {
		return OpenPostgres(tb)
	}
	return OpenSQLite(tb)
}

// Each runs fn against a fresh migrated store on each database, as
// parallel subtests: "postgres" (skipped without EnvDatabaseURL, unless
// CI=true) and "sqlite" (always).
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, OpenPostgres(t))
	})
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, OpenSQLite(t))
	})
}

// OpenPostgres returns a migrated store on a fresh PostgreSQL database,
// closed and dropped when tb ends. It skips tb when EnvDatabaseURL is unset
// (fails it when CI=true).
func OpenPostgres(tb testing.TB) *store.Store {
	tb.Helper()
	return openMigrated(tb, PostgresDSN(tb))
}

// OpenSQLite returns a migrated store on a new SQLite file in tb's temp
// directory, closed when tb ends.
func OpenSQLite(tb testing.TB) *store.Store {
	tb.Helper()
	return openMigrated(tb, SQLitePath(tb))
}

// PostgresDSN creates an empty PostgreSQL database (not migrated) and
// returns its URL; the database is dropped, connections and all, when tb
// ends. It skips tb when EnvDatabaseURL is unset (fails it when CI=true).
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	server := os.Getenv(EnvDatabaseURL)
	if server == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set and CI=true: PostgreSQL tests must run in CI", EnvDatabaseURL)
		}
		tb.Skipf("%s not set; PostgreSQL tests skipped (e.g. %s=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)", EnvDatabaseURL, EnvDatabaseURL)
	}
	u, err := url.Parse(server)
	if err != nil {
		tb.Fatalf("parse %s: %v", EnvDatabaseURL, err)
	}
	admin, err := sql.Open("pgx", server)
	if err != nil {
		tb.Fatalf("connect to test PostgreSQL: %v", err)
	}
	tb.Cleanup(func() { admin.Close() })

	b := make([]byte, 8)
	rand.Read(b)
	name := "glmcp_test_" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	// Registered after admin.Close, so it runs before it (cleanups are LIFO),
	// and after the store's Close registered by the caller.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// SQLitePath returns the path of a not yet existing SQLite database file
// in tb's temp directory.
func SQLitePath(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(tb.TempDir(), "glmcp.db")
}

func openMigrated(tb testing.TB, dsn string) *store.Store {
	tb.Helper()
	ctx := context.Background()
	repos, err := repository.OpenStorage(tb.TempDir())
	if err != nil {
		tb.Fatalf("open test repositories: %v", err)
	}
	s, err := store.Open(ctx, dsn, store.Options{Repositories: repos})
	if err != nil {
		tb.Fatalf("open test store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close test store: %v", err)
		}
		repos.Close()
	})
	if err := s.Migrate(ctx); err != nil {
		tb.Fatalf("migrate test store: %v", err)
	}
	return s
}

// Repositories returns the repository storage of a store made here.
func Repositories(tb testing.TB, st *store.Store) *repository.Storage {
	tb.Helper()
	repos, ok := st.Repositories().(*repository.Storage)
	if !ok {
		tb.Fatalf("the store has no repository storage (%T)", st.Repositories())
	}
	return repos
}

// State reads what a refused write must leave untouched in tables: the
// row count and a digest of the full content of each (so an UPDATE is
// caught as well as an INSERT or DELETE), keyed "<table> rows" and
// "<table> content digest". Every table's first two columns must identify
// a row (an id, or the composite key), so that their order is total.
func State(tb testing.TB, st *store.Store, tables ...string) map[string]int64 {
	tb.Helper()
	db := st.DB().WithContext(context.Background())
	out := map[string]int64{}
	for _, table := range tables {
		var rows []map[string]any
		if err := db.Raw("SELECT * FROM " + table + " ORDER BY 1, 2").Scan(&rows).Error; err != nil {
			tb.Fatalf("read %s: %v", table, err)
		}
		digest := fnv.New64a()
		fmt.Fprint(digest, rows)
		out[table+" rows"] = int64(len(rows))
		out[table+" content digest"] = int64(digest.Sum64())
	}
	return out
}

// Int runs a query returning one integer (0 when it returns no row), for
// checks the store's API has no reader for.
func Int(tb testing.TB, st *store.Store, query string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := st.DB().WithContext(context.Background()).Raw(query, args...).Scan(&n).Error; err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

// Ints runs a query returning one integer column, for checks the store's
// API has no reader for.
func Ints(tb testing.TB, st *store.Store, query string, args ...any) []int64 {
	tb.Helper()
	var out []int64
	if err := st.DB().WithContext(context.Background()).Raw(query, args...).Scan(&out).Error; err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return out
}
