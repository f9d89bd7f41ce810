package store

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"gitlab.com/glmcp/glmcp/models"
)

// sqliteErr is a driver error with SQLite's result code.
type sqliteErr int

func (e sqliteErr) Error() string { return "sqlite error" }
func (e sqliteErr) Code() int     { return int(e) }

// A database out of space (PostgreSQL disk_full, a read-only server;
// SQLite FULL, READONLY) is models.ErrInsufficientStorage, whose answer
// names no path; other errors keep their kind.
func TestTranslate_storageFull(t *testing.T) {
	for _, c := range []struct {
		err  error
		full bool
	}{
		{&pgconn.PgError{Code: "53100", Message: `could not extend file "base/16384/2619": No space left on device`}, true},
		{&pgconn.PgError{Code: "25006", Message: "cannot execute UPDATE in a read-only transaction"}, true},
		{sqliteErr(13), true},
		{sqliteErr(8), true},
		{&pgconn.PgError{Code: "23505"}, false},
		{sqliteErr(2067), false},
	} {
		got := translate(c.err)
		if models.IsStorageFull(got) != c.full {
			t.Errorf("%v: storage full = %v, want %v", c.err, !c.full, c.full)
		}
		if c.full && !errors.Is(got, models.ErrInsufficientStorage) {
			t.Errorf("%v: not ErrInsufficientStorage: %v", c.err, got)
		}
	}
}
