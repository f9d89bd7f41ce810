package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
)

// Dialects accepted by Up and Version.
const (
	DialectPostgres = "postgres"
	DialectSQLite   = "sqlite"
)

//go:embed postgres/*.sql sqlite/*.sql
var files embed.FS

// Up applies every migration not yet applied to db. It is idempotent. On
// PostgreSQL it holds a session advisory lock while it runs, so instances
// starting together apply each migration once.
func Up(ctx context.Context, db *sql.DB, dialect string) error {
	// Provider.Close would close db, which belongs to the caller: not called.
	p, err := newProvider(db, dialect, true)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("apply %s migrations: %w", dialect, err)
	}
	if dialect == DialectPostgres {
		return repairIndexes(ctx, db)
	}
	return nil
}

// concurrentIndex finds the indexes a migration builds CONCURRENTLY.
var concurrentIndex = regexp.MustCompile(`(?i)CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+([a-z0-9_]+)`)

// ConcurrentIndexes returns the names of the indexes the PostgreSQL
// migrations build CONCURRENTLY (outside a transaction), sorted.
func ConcurrentIndexes() ([]string, error) {
	fsys, _, err := source(DialectPostgres)
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list postgres migrations: %w", err)
	}
	var out []string
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", name, err)
		}
		for _, m := range concurrentIndex.FindAllSubmatch(b, -1) {
			out = append(out, strings.ToLower(string(m[1])))
		}
	}
	slices.Sort(out)
	return out, nil
}

// repairIndexes rebuilds the indexes of ConcurrentIndexes that an
// interrupted build left INVALID. A CREATE INDEX CONCURRENTLY that fails
// or is cancelled (a deadlock, a restart, a unique violation) leaves the
// index in the catalog, marked invalid: PostgreSQL keeps updating it but
// never reads it, and the migration's IF NOT EXISTS would skip it when
// run again. REINDEX INDEX CONCURRENTLY builds it anew; the _ccnew/_ccold
// leftovers of an interrupted REINDEX are dropped. Indexes glmcp does not
// build are left alone.
func repairIndexes(ctx context.Context, db *sql.DB) error {
	ours, err := ConcurrentIndexes()
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT n.nspname, c.relname FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE NOT i.indisvalid AND n.nspname = current_schema() ORDER BY c.relname`)
	if err != nil {
		return fmt.Errorf("find invalid indexes: %w", err)
	}
	type index struct{ schema, name string }
	var invalid []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.schema, &ix.name); err != nil {
			rows.Close()
			return fmt.Errorf("find invalid indexes: %w", err)
		}
		invalid = append(invalid, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find invalid indexes: %w", err)
	}
	for _, ix := range invalid {
		base := reindexLeftover.ReplaceAllString(ix.name, "")
		if _, found := slices.BinarySearch(ours, base); !found {
			continue
		}
		stmt := "REINDEX INDEX CONCURRENTLY " + quoteIdent(ix.schema) + "." + quoteIdent(ix.name)
		if base != ix.name {
			stmt = "DROP INDEX CONCURRENTLY IF EXISTS " + quoteIdent(ix.schema) + "." + quoteIdent(ix.name)
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("rebuild invalid index %s: %w", ix.name, err)
		}
	}
	return nil
}

// reindexLeftover matches the suffix REINDEX CONCURRENTLY gives the
// indexes it leaves behind when interrupted.
var reindexLeftover = regexp.MustCompile(`_cc(new|old)[0-9]*$`)

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Version returns the highest migration version applied to db, 0 for a
// database never migrated. It only reads: unlike goose's own version query,
// it does not create the version table.
func Version(ctx context.Context, db *sql.DB, dialect string) (int64, error) {
	_, gd, err := source(dialect)
	if err != nil {
		return 0, err
	}
	store, err := database.NewStore(gd, goose.DefaultTablename)
	if err != nil {
		return 0, fmt.Errorf("migration store: %w", err)
	}
	exists, err := versionTableExists(ctx, db, dialect, store)
	if err != nil {
		return 0, fmt.Errorf("read %s migration version: %w", dialect, err)
	}
	if !exists {
		return 0, nil
	}
	v, err := store.GetLatestVersion(ctx, db)
	switch {
	case errors.Is(err, database.ErrVersionNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("read %s migration version: %w", dialect, err)
	}
	return v, nil
}

func versionTableExists(ctx context.Context, db *sql.DB, dialect string, store database.Store) (bool, error) {
	if ext, ok := store.(database.StoreExtender); ok {
		exists, err := ext.TableExists(ctx, db)
		if !errors.Is(err, errors.ErrUnsupported) {
			return exists, err
		}
	}
	// goose's sqlite3 store has no TableExists.
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1`
	if dialect == DialectPostgres {
		q = `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1`
	}
	var n int
	if err := db.QueryRowContext(ctx, q, goose.DefaultTablename).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// Fingerprint returns a digest of the embedded migrations for dialect
// (names and contents): two databases migrated by code with the same
// fingerprint have the same schema. Tests key cached migrated databases by
// it.
func Fingerprint(dialect string) (string, error) {
	fsys, _, err := source(dialect)
	if err != nil {
		return "", err
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return "", fmt.Errorf("list %s migrations: %w", dialect, err)
	}
	h := sha256.New()
	for _, name := range names { // fs.Glob returns them sorted
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", fmt.Errorf("read migration %q: %w", name, err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Latest returns the version the embedded migrations for dialect lead to.
func Latest(dialect string) (int64, error) {
	fsys, _, err := source(dialect)
	if err != nil {
		return 0, err
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return 0, fmt.Errorf("list %s migrations: %w", dialect, err)
	}
	var latest int64
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return 0, fmt.Errorf("migration %q: %w", name, err)
		}
		latest = max(latest, v)
	}
	return latest, nil
}

func newProvider(db *sql.DB, dialect string, locked bool) (*goose.Provider, error) {
	fsys, gooseDialect, err := source(dialect)
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(slog.New(slog.DiscardHandler)),
		// Branches land migrations with versions below ones another branch
		// landed first; a database migrated in between must still take
		// them, not refuse to start.
		goose.WithAllowOutofOrder(true),
	}
	if locked && dialect == DialectPostgres {
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300)) // poll every second, give up after 5 minutes
		if err != nil {
			return nil, fmt.Errorf("migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(gooseDialect, db, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("load %s migrations: %w", dialect, err)
	}
	return p, nil
}

// source returns the migration files and goose dialect for dialect.
func source(dialect string) (fs.FS, goose.Dialect, error) {
	var gd goose.Dialect
	switch dialect {
	case DialectPostgres:
		gd = goose.DialectPostgres
	case DialectSQLite:
		// goose's dialect constant only: its SQL, not a driver.
		gd = goose.DialectSQLite3
	default:
		return nil, "", fmt.Errorf("migrations: unknown dialect %q (want %q or %q)", dialect, DialectPostgres, DialectSQLite)
	}
	sub, err := fs.Sub(files, dialect)
	if err != nil {
		return nil, "", fmt.Errorf("migrations: %w", err)
	}
	return sub, gd, nil
}
