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
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for CREATE/DROP DATABASE

	"gitlab.com/glmcp/glmcp/migrations"
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
	return openMigrated(tb, MigratedPostgresDSN(tb))
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
	return postgresDSN(tb, "")
}

// PostgresDSNFrom is PostgresDSN with the new database a copy of the
// database template (CREATE DATABASE … TEMPLATE, see CreateTemplate): much
// cheaper than migrating and seeding it again. Nobody may be connected to
// template meanwhile.
func PostgresDSNFrom(tb testing.TB, template string) string {
	tb.Helper()
	return postgresDSN(tb, template)
}

func postgresDSN(tb testing.TB, template string) string {
	tb.Helper()
	server := os.Getenv(EnvDatabaseURL)
	if server == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set and CI=true: PostgreSQL tests must run in CI", EnvDatabaseURL)
		}
		tb.Skipf("%s not set; PostgreSQL tests skipped (e.g. %s=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)", EnvDatabaseURL, EnvDatabaseURL)
	}
	if _, err := withDatabase(server, ""); err != nil {
		tb.Fatal(err)
	}
	name, drop, err := createDatabase(server, "glmcp_test_", template)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := drop(); err != nil {
			tb.Error(err)
		}
	})
	dsn, _ := withDatabase(server, name) // parsed above
	return dsn
}

// CreateTemplate creates an empty database on the EnvDatabaseURL server,
// to be filled once and then copied by PostgresDSNFrom. It returns the
// database's name, its URL and a function that drops it (call it when the
// package's tests are done, e.g. from TestMain).
func CreateTemplate() (name, dsn string, drop func() error, err error) {
	server := os.Getenv(EnvDatabaseURL)
	if server == "" {
		return "", "", nil, fmt.Errorf("%s is not set", EnvDatabaseURL)
	}
	if _, err := withDatabase(server, ""); err != nil {
		return "", "", nil, err
	}
	name, drop, err = createDatabase(server, "glmcp_tmpl_", "")
	if err != nil {
		return "", "", nil, err
	}
	dsn, _ = withDatabase(server, name) // parsed above
	return name, dsn, drop, nil
}

// createDatabase creates a database named prefix+random (a copy of
// template unless it is "") and returns its name and a function that drops
// it, connections and all.
func createDatabase(server, prefix, template string) (string, func() error, error) {
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return "", nil, fmt.Errorf("connect to test PostgreSQL: %w", err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	name := prefix + hex.EncodeToString(b)
	stmt := "CREATE DATABASE " + name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if template != "" {
		stmt += " TEMPLATE " + template
		// PostgreSQL 15 copies a database block by block through the WAL
		// by default; for a template of ~10 MB copied a thousand times a
		// run, copying the files is about twice as fast (with fsync off,
		// as scripts/test sets it under CI; the same speed otherwise).
		var version int
		if err := admin.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err == nil && version >= 150000 {
			stmt += " STRATEGY FILE_COPY"
		}
	}
	if _, err := admin.ExecContext(ctx, stmt); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create test database: %w", err)
	}
	drop := func() error {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop test database %s: %w", name, err)
		}
		return nil
	}
	return name, drop, nil
}

// withDatabase returns the server URL with its database set to name.
func withDatabase(server, name string) (string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvDatabaseURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// SQLitePath returns the path of a not yet existing SQLite database file
// in tb's temp directory.
func SQLitePath(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(tb.TempDir(), "glmcp.db")
}

// MigratedPostgresDSN is PostgresDSN with the database already migrated:
// a copy of the migrated template of this code's migrations.
func MigratedPostgresDSN(tb testing.TB) string {
	tb.Helper()
	if os.Getenv(EnvDatabaseURL) == "" {
		return PostgresDSN(tb) // skips, or fails under CI
	}
	template, err := migratedTemplate(os.Getenv(EnvDatabaseURL))
	if err != nil {
		tb.Fatalf("migrated template database: %v", err)
	}
	return PostgresDSNFrom(tb, template)
}

var migratedTemplates sync.Map // server URL → *templateOnce

type templateOnce struct {
	once sync.Once
	name string
	err  error
}

// migratedTemplate returns the name of a database on server migrated by
// this code's migrations, to be copied with CREATE DATABASE … TEMPLATE:
// migrating a database costs a few hundred milliseconds, copying one a
// few tens. It is named after the migrations' fingerprint
// (glmcp_migrated_<fingerprint>), so test processes and later runs share
// it, and it is built under another name and renamed when complete, so
// nobody copies a half-migrated one. Templates of earlier migrations are
// left on the server (a worktree on other code may still use one); CI
// starts from an empty server.
func migratedTemplate(server string) (string, error) {
	v, _ := migratedTemplates.LoadOrStore(server, &templateOnce{})
	t := v.(*templateOnce)
	t.once.Do(func() { t.name, t.err = buildMigratedTemplate(server) })
	return t.name, t.err
}

func buildMigratedTemplate(server string) (string, error) {
	fp, err := migrations.Fingerprint(migrations.DialectPostgres)
	if err != nil {
		return "", err
	}
	final := "glmcp_migrated_" + fp[:16]
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return "", fmt.Errorf("connect to test PostgreSQL: %w", err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var exists bool
	if err := admin.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", final).Scan(&exists); err != nil {
		return "", fmt.Errorf("look for %s: %w", final, err)
	}
	if exists {
		return final, nil
	}
	name, drop, err := createDatabase(server, "glmcp_migrating_", "")
	if err != nil {
		return "", err
	}
	dsn, err := withDatabase(server, name)
	if err != nil {
		_ = drop()
		return "", err
	}
	s, err := store.Open(ctx, dsn, store.Options{})
	if err == nil {
		err = s.Migrate(ctx)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		_, err = admin.ExecContext(ctx, "ALTER DATABASE "+name+" RENAME TO "+final)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
			err = nil // another process finished first: use its template
		}
	}
	// Renamed, name is gone and this drops nothing (IF EXISTS).
	if derr := drop(); err == nil {
		err = derr
	}
	if err != nil {
		return "", fmt.Errorf("build %s: %w", final, err)
	}
	return final, nil
}

func openMigrated(tb testing.TB, dsn string) *store.Store {
	tb.Helper()
	ctx := context.Background()
	repos, err := repository.OpenStorage(tb.TempDir())
	if err != nil {
		tb.Fatalf("open test repositories: %v", err)
	}
	// Background housekeeping stops before the directory goes.
	tb.Cleanup(func() { repos.Close() })
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
	repos, ok := st.Projects.Repositories().(*repository.Storage)
	if !ok {
		tb.Fatalf("the store has no repository storage (%T)", st.Projects.Repositories())
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

// SetMergeRequestAuthor makes userID the author of merge request iid of
// projectID, a state no tool can reach (a merge request's author is who
// opened it), for specs of what an author's role changes.
func SetMergeRequestAuthor(tb testing.TB, st *store.Store, projectID, iid, userID int64) {
	tb.Helper()
	res := st.DB().WithContext(context.Background()).
		Exec("UPDATE merge_requests SET author_id = ? WHERE project_id = ? AND iid = ?", userID, projectID, iid)
	if res.Error != nil || res.RowsAffected != 1 {
		tb.Fatalf("set the author of !%d in project %d: %v (%d rows)", iid, projectID, res.Error, res.RowsAffected)
	}
}
