package migrations_test

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

func TestMigrationFiles(t *testing.T) {
	// Both dialects carry the same versions under the same names, each with
	// an Up and a Down section.
	names := map[string][]string{}
	for _, dialect := range []string{migrations.DialectPostgres, migrations.DialectSQLite} {
		entries, err := os.ReadDir(dialect)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names[dialect] = append(names[dialect], e.Name())
			b, err := os.ReadFile(dialect + "/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(e.Name(), ".sql") || !strings.Contains(string(b), "-- +goose Up") || !strings.Contains(string(b), "-- +goose Down") {
				t.Errorf("%s/%s: want a .sql file with -- +goose Up and -- +goose Down", dialect, e.Name())
			}
			if _, err := goose.NumericComponent(e.Name()); err != nil || len(strings.SplitN(e.Name(), "_", 2)[0]) != 14 {
				t.Errorf("%s/%s: want a YYYYMMDDHHMMSS_ version prefix", dialect, e.Name())
			}
		}
	}
	if !slices.Equal(names[migrations.DialectPostgres], names[migrations.DialectSQLite]) {
		t.Errorf("migration names differ:\npostgres %v\nsqlite   %v", names[migrations.DialectPostgres], names[migrations.DialectSQLite])
	}
	latestPG, err1 := migrations.Latest(migrations.DialectPostgres)
	latestLite, err2 := migrations.Latest(migrations.DialectSQLite)
	if err1 != nil || err2 != nil || latestPG != latestLite || latestPG == 0 {
		t.Errorf("Latest() = %d (%v), %d (%v); want equal and non-zero", latestPG, err1, latestLite, err2)
	}
}

func TestUnknownDialect(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	if err := migrations.Up(ctx, db, "mysql"); err == nil {
		t.Error("Up(mysql) error = nil")
	}
	if _, err := migrations.Version(ctx, db, "sqlite3"); err == nil {
		t.Error("Version(sqlite3) error = nil")
	}
	if _, err := migrations.Latest(""); err == nil {
		t.Error("Latest(\"\") error = nil")
	}
}

func TestUpDownUp(t *testing.T) {
	tests := []struct {
		dialect string
		open    func(*testing.T) *sql.DB
	}{
		{migrations.DialectPostgres, openPostgres},
		{migrations.DialectSQLite, openSQLite},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			ctx := context.Background()
			db := tt.open(t)
			latest, err := migrations.Latest(tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := migrations.Version(ctx, db, tt.dialect); err != nil || v != 0 {
				t.Fatalf("Version() on an empty database = %d, %v; want 0", v, err)
			}
			if tableExists(t, db, tt.dialect, "goose_db_version") {
				t.Error("Version() created the goose_db_version table")
			}
			for range 2 { // idempotent
				if err := migrations.Up(ctx, db, tt.dialect); err != nil {
					t.Fatalf("Up() error = %v", err)
				}
				if v, err := migrations.Version(ctx, db, tt.dialect); err != nil || v != latest {
					t.Fatalf("Version() = %d, %v; want %d", v, err, latest)
				}
			}
			if err := db.PingContext(ctx); err != nil {
				t.Fatalf("Up closed the caller's database: %v", err)
			}

			// Every Down section runs, and the schema can be rebuilt.
			p := fileProvider(t, db, tt.dialect)
			if _, err := p.DownTo(ctx, 0); err != nil {
				t.Fatalf("down to 0: %v", err)
			}
			for _, table := range []string{"users", "tools", "repository_files", "catalog_versions"} {
				if tableExists(t, db, tt.dialect, table) {
					t.Errorf("table %s left after migrating down", table)
				}
			}
			if err := migrations.Up(ctx, db, tt.dialect); err != nil {
				t.Fatalf("Up() after down: %v", err)
			}
			if v, _ := migrations.Version(ctx, db, tt.dialect); v != latest {
				t.Errorf("Version() after down and up = %d, want %d", v, latest)
			}
		})
	}
}

func TestUp_concurrentPostgres(t *testing.T) {
	// Instances starting together: the advisory lock lets each migration
	// run once.
	db := openPostgres(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for k := range errs {
		wg.Go(func() { errs[k] = migrations.Up(ctx, db, migrations.DialectPostgres) })
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Errorf("Up() #%d error = %v", k, err)
		}
	}
	latest, _ := migrations.Latest(migrations.DialectPostgres)
	if v, err := migrations.Version(ctx, db, migrations.DialectPostgres); err != nil || v != latest {
		t.Errorf("Version() = %d, %v; want %d", v, err, latest)
	}
}

func TestPostgresSearchVector(t *testing.T) {
	// repository_files carries a generated tsvector for ranked code search.
	db := openPostgres(t)
	ctx := context.Background()
	if err := migrations.Up(ctx, db, migrations.DialectPostgres); err != nil {
		t.Fatal(err)
	}
	_, err := db.ExecContext(ctx, `
INSERT INTO users (username, email, name) VALUES ('u', 'u@example.com', 'U');
INSERT INTO namespaces (name, path, full_path) VALUES ('g', 'g', 'g');
INSERT INTO projects (name, path, namespace_id, path_with_namespace) VALUES ('p', 'p', 1, 'g/p');
INSERT INTO repository_files (project_id, ref, file_path, content, blob_id) VALUES
  (1, 'main', 'graph/graph.go', 'func Reachable(start string) []string', 'a'),
  (1, 'main', 'README.md', 'Orbit indexes a code base', 'b');`)
	if err != nil {
		t.Fatal(err)
	}
	var path string
	err = db.QueryRowContext(ctx, `SELECT file_path FROM repository_files
WHERE search_vector @@ plainto_tsquery('simple', 'reachable')
ORDER BY ts_rank(search_vector, plainto_tsquery('simple', 'reachable')) DESC LIMIT 1`).Scan(&path)
	if err != nil || path != "graph/graph.go" {
		t.Errorf("full-text match = %q, %v; want graph/graph.go", path, err)
	}
}

func openPostgres(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", storetest.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openSQLite(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", storetest.SQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func tableExists(t *testing.T, db *sql.DB, dialect, table string) bool {
	t.Helper()
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1`
	if dialect == migrations.DialectPostgres {
		q = `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1`
	}
	var n int
	if err := db.QueryRow(q, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// A migration with a version below the newest applied one (landed from a
// branch after a later one) is applied, not refused.
func TestUp_outOfOrder(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	if err := migrations.Up(ctx, db, migrations.DialectSQLite); err != nil {
		t.Fatal(err)
	}
	// As if 20261201120100 (releases) had landed after every later one was
	// applied here.
	for _, q := range []string{"DROP TABLE release_links", "DROP TABLE releases",
		"DELETE FROM goose_db_version WHERE version_id = 20261201120100"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrations.Up(ctx, db, migrations.DialectSQLite); err != nil {
		t.Fatalf("Up with an older pending migration: %v", err)
	}
	if !tableExists(t, db, migrations.DialectSQLite, "releases") {
		t.Fatal("the out-of-order migration was not applied")
	}
}

// fileProvider is a goose provider over the migration files of dialect in
// this directory, for tests that step through versions one by one.
func fileProvider(t *testing.T, db *sql.DB, dialect string) *goose.Provider {
	t.Helper()
	sub, err := fs.Sub(os.DirFS("."), dialect)
	if err != nil {
		t.Fatal(err)
	}
	gd := goose.DialectPostgres
	if dialect == migrations.DialectSQLite {
		gd = goose.DialectSQLite3
	}
	p, err := goose.NewProvider(gd, db, sub, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// insertReturningID runs the INSERT q with RETURNING id and returns the id.
func insertReturningID(t *testing.T, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRowContext(context.Background(), q+" RETURNING id", args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return id
}
