package store

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// SQLite result codes (https://sqlite.org/rescode.html) seen through the
// driver's Code() method.
const (
	sqliteConstraint           = 19
	sqliteConstraintPrimaryKey = 1555
	sqliteConstraintUnique     = 2067
	sqliteFull                 = 13
	sqliteReadOnly             = 8
)

// translate maps a driver or gorm error to the domain sentinels. It is
// applied once, by the method that ran the query; callers wrap the result
// with what they were doing. Errors it does not recognise pass unchanged.
func translate(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	if unavailable(err) {
		return unavailableError(err)
	}
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return models.ErrNotFound
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return &models.DatabaseError{Kind: models.ErrConflict, Err: err}
	case errors.Is(err, gorm.ErrForeignKeyViolated), errors.Is(err, gorm.ErrCheckConstraintViolated):
		return &models.DatabaseError{Kind: models.ErrInvalidInput, Err: err}
	}
	// What gorm's dialect translators leave alone.
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		switch state := pg.SQLState(); {
		case state == "23505":
			return &models.DatabaseError{Kind: models.ErrConflict, Err: err}
		case state == "53100", state == "25006":
			// disk_full; read_only_sql_transaction (a read-only server)
			return &models.DatabaseError{Kind: models.ErrInsufficientStorage, Err: err}
		case strings.HasPrefix(state, "23"), strings.HasPrefix(state, "22"):
			// integrity constraint violation, data exception
			return &models.DatabaseError{Kind: models.ErrInvalidInput, Err: err}
		}
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		switch code := lite.Code(); {
		case code == sqliteConstraintUnique, code == sqliteConstraintPrimaryKey:
			return &models.DatabaseError{Kind: models.ErrConflict, Err: err}
		case code&0xff == sqliteConstraint:
			return &models.DatabaseError{Kind: models.ErrInvalidInput, Err: err}
		case code&0xff == sqliteFull, code&0xff == sqliteReadOnly:
			return &models.DatabaseError{Kind: models.ErrInsufficientStorage, Err: err}
		}
	}
	return err
}

// violates reports whether err is a unique violation of the index named
// index: PostgreSQL names it (ConstraintName); SQLite names the columns of
// a column index ("projects.namespace_id, projects.name") and the name of
// an expression index, which sqliteTarget gives.
func violates(err error, index, sqliteTarget string) bool {
	if !errors.Is(translate(err), models.ErrConflict) {
		return false
	}
	if pg := (*pgconn.PgError)(nil); errors.As(err, &pg) {
		return pg.ConstraintName == index
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		msg := err.Error()
		_, target, ok := strings.Cut(msg, "UNIQUE constraint failed: ")
		if !ok {
			return false
		}
		target, _, _ = strings.Cut(target, " (")
		return target == sqliteTarget || target == "index '"+sqliteTarget+"'"
	}
	return false
}
