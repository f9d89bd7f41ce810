package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

func TestOpen_migrateFromScratch(t *testing.T) {
	tests := []struct {
		name    string
		dsn     func(tb testing.TB) string
		dialect string
	}{
		{"postgres", storetest.PostgresDSN, migrations.DialectPostgres},
		{"sqlite file", storetest.SQLitePath, migrations.DialectSQLite},
		{"sqlite in memory", func(testing.TB) string { return ":memory:" }, migrations.DialectSQLite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := store.Open(ctx, tt.dsn(t), store.Options{})
			if err != nil {
				t.Fatalf("Open() error = %v", err)
			}
			t.Cleanup(func() { s.Close() })
			if got := s.Dialect(); got != tt.dialect {
				t.Errorf("Dialect() = %q, want %q", got, tt.dialect)
			}
			if v, err := s.SchemaVersion(ctx); err != nil || v != 0 {
				t.Fatalf("SchemaVersion() before Migrate = %d, %v; want 0, nil", v, err)
			}
			latest, err := migrations.Latest(tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second run is a no-op
				if err := s.Migrate(ctx); err != nil {
					t.Fatalf("Migrate() error = %v", err)
				}
				if v, err := s.SchemaVersion(ctx); err != nil || v != latest {
					t.Fatalf("SchemaVersion() = %d, %v; want %d", v, err, latest)
				}
			}
			if v, err := s.Tools.CatalogVersion(ctx); err != nil || v != 0 {
				t.Errorf("CatalogVersion() on a fresh database = %d, %v; want 0", v, err)
			}
			// The schema is usable.
			mustCreateUser(t, s, "alice")
		})
	}
}

func TestOpen_badDSN(t *testing.T) {
	ctx := context.Background()
	if _, err := store.Open(ctx, "  ", store.Options{}); !errors.Is(err, models.ErrInvalidInput) {
		t.Errorf("Open(blank) error = %v, want models.ErrInvalidInput", err)
	}
	// Nothing listens on port 1: the connection check fails at Open.
	if s, err := store.Open(ctx, "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=5", store.Options{}); err == nil {
		s.Close()
		t.Error("Open(unreachable postgres) error = nil, want an error")
	}
}

func TestStore_sqlDriversRegisteredOnce(t *testing.T) {
	// Importing the store registers modernc.org/sqlite's "sqlite" and
	// pgx's "pgx"; a second registration of "sqlite" (another driver of the
	// same name, such as glebarez/go-sqlite) would have panicked before
	// this test ran.
	drivers := sql.Drivers()
	for _, name := range []string{"sqlite", "pgx"} {
		if !slices.Contains(drivers, name) {
			t.Errorf("sql.Drivers() = %v, want %q registered", drivers, name)
		}
	}
}

func TestStore_WithTx(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		errStop := errors.New("stop")

		err := s.WithTx(ctx, func(tx *store.Store) error {
			mustCreateUser(t, tx, "rolled-back")
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("WithTx() error = %v, want the callback's error", err)
		}
		if _, err := s.Users.FindUserByUsername(ctx, "rolled-back"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("user written in a rolled-back transaction: FindUserByUsername() error = %v", err)
		}

		err = s.WithTx(ctx, func(tx *store.Store) error {
			mustCreateUser(t, tx, "kept")
			// A failing nested transaction rolls back to its savepoint only.
			inner := tx.WithTx(ctx, func(tx2 *store.Store) error {
				mustCreateUser(t, tx2, "inner")
				return errStop
			})
			if !errors.Is(inner, errStop) {
				t.Errorf("nested WithTx() error = %v, want errStop", inner)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("WithTx() error = %v", err)
		}
		if _, err := s.Users.FindUserByUsername(ctx, "kept"); err != nil {
			t.Errorf("committed user: %v", err)
		}
		if _, err := s.Users.FindUserByUsername(ctx, "inner"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("user of the rolled-back savepoint: FindUserByUsername() error = %v, want ErrNotFound", err)
		}
	})
}

func TestStore_timesStoredInUTC(t *testing.T) {
	// SQLite compares and sorts times as text: every time is written in
	// UTC, whatever the caller's zone.
	s := storetest.OpenSQLite(t)
	ctx := context.Background()
	tokyo := time.FixedZone("JST", 9*3600)
	u := &models.User{Username: "alice", Email: "a@example.com",
		CreatedAt: time.Date(2026, 1, 2, 9, 0, 0, 123456789, tokyo)}
	if err := s.Users.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := s.DB().Raw("SELECT CAST(created_at AS TEXT) FROM users WHERE id = ?", u.ID).Scan(&raw).Error; err != nil {
		t.Fatal(err)
	}
	if raw != "2026-01-02 00:00:00.123456+00:00" {
		t.Errorf("stored created_at = %q, want 2026-01-02 00:00:00.123456+00:00", raw)
	}
}

func TestOpen_sqlitePragmas(t *testing.T) {
	s := storetest.OpenSQLite(t)
	sqlDB, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Hold several connections at once so the check covers more than one.
	var conns []*sql.Conn
	for range 3 {
		c, err := sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for k, c := range conns {
		var mode string
		var fk, busy int
		if err := c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || fk != 1 || busy != 10000 {
			t.Errorf("connection %d: journal_mode %q foreign_keys %d busy_timeout %d; want wal, 1, 10000", k, mode, fk, busy)
		}
		c.Close()
	}
	if got := sqlDB.Stats().MaxOpenConnections; got != 4 {
		t.Errorf("MaxOpenConnections = %d, want 4", got)
	}
}

// Ensure the pool keeps every connection it opened for a burst: a second
// burst of the same size reuses them instead of closing the excess and
// opening new sessions (issue #12: 40–75 new PostgreSQL sessions per
// second under steady load with MaxIdleConns at half the pool).
func TestOpen_poolKeepsItsConnections(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		dsn  func(t *testing.T) string
		opts store.Options
		want int
	}{
		{"postgres default", pgDSN, store.Options{}, 10},
		{"postgres GLMCP_DB_MAX_CONNS", pgDSN, store.Options{MaxOpenConns: 3}, 3},
		{"sqlite default", func(t *testing.T) string { return filepath.Join(t.TempDir(), "pool.db") }, store.Options{}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := store.Open(ctx, tc.dsn(t), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sqlDB, err := s.SQLDB()
			if err != nil {
				t.Fatal(err)
			}
			burst := func() {
				conns := make([]*sql.Conn, tc.want)
				for i := range conns {
					if conns[i], err = sqlDB.Conn(ctx); err != nil {
						t.Fatal(err)
					}
					if err := conns[i].PingContext(ctx); err != nil {
						t.Fatal(err)
					}
				}
				for _, c := range conns {
					c.Close()
				}
			}
			burst()
			burst()
			st := sqlDB.Stats()
			if st.MaxOpenConnections != tc.want || st.Idle != tc.want || st.OpenConnections != tc.want {
				t.Errorf("max %d, open %d, idle %d; want %d each", st.MaxOpenConnections, st.OpenConnections, st.Idle, tc.want)
			}
			if st.MaxIdleClosed != 0 || st.MaxLifetimeClosed != 0 || st.MaxIdleTimeClosed != 0 {
				t.Errorf("closed %d connections over the idle limit, %d at their lifetime, %d idle too long; want none",
					st.MaxIdleClosed, st.MaxLifetimeClosed, st.MaxIdleTimeClosed)
			}
		})
	}
}

func pgDSN(t *testing.T) string { return storetest.PostgresDSN(t) }
