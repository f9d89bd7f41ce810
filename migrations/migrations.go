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
	return nil
}

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
