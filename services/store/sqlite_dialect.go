package store

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteDialector is gorm's SQLite dialect over modernc.org/sqlite's own
// database/sql driver (pure Go: the binary stays static, no cgo).
//
// glmcp used github.com/glebarez/sqlite, whose driver (a fork of an older
// modernc driver) compiles every statement again at every execution, even
// a prepared one: sqlite3_prepare_v2 was a fifth of the CPU of a simple
// tool call. modernc's driver keeps the compiled statement of a prepared
// statement, so with gorm's PrepareStmt cache (see Open) each statement
// shape is compiled once per connection. Both drivers write times in the
// same text format (_time_format=sqlite), so existing databases read the
// same.
//
// The dialect is what glmcp's queries need: SQLite ≥ 3.35 (RETURNING),
// "?" placeholders, backtick quoting, LIMIT/OFFSET, savepoints, and the
// constraint errors gorm translates. Migrations are goose SQL files, so
// gorm's migrator is the generic one and unused.
type sqliteDialector struct {
	db *sql.DB
}

func (sqliteDialector) Name() string { return "sqlite" }

func (d sqliteDialector) Initialize(db *gorm.DB) error {
	db.ConnPool = d.db
	callbacks.RegisterDefaultCallbacks(db, &callbacks.Config{
		CreateClauses:        []string{"INSERT", "VALUES", "ON CONFLICT", "RETURNING"},
		UpdateClauses:        []string{"UPDATE", "SET", "FROM", "WHERE", "RETURNING"},
		DeleteClauses:        []string{"DELETE", "FROM", "WHERE", "RETURNING"},
		LastInsertIDReversed: true,
	})
	db.ClauseBuilders["LIMIT"] = sqliteLimit
	db.ClauseBuilders["FOR"] = func(c clause.Clause, b clause.Builder) {
		if _, ok := c.Expression.(clause.Locking); ok {
			return // SQLite locks the database, not rows
		}
		c.Build(b)
	}
	return nil
}

// sqliteLimit writes LIMIT n [OFFSET m]; an offset without a limit needs
// LIMIT -1 in SQLite.
func sqliteLimit(c clause.Clause, b clause.Builder) {
	limit, ok := c.Expression.(clause.Limit)
	if !ok {
		return
	}
	n := -1
	if limit.Limit != nil && *limit.Limit >= 0 {
		n = *limit.Limit
	}
	if n >= 0 || limit.Offset > 0 {
		b.WriteString("LIMIT ")
		b.WriteString(strconv.Itoa(n))
	}
	if limit.Offset > 0 {
		b.WriteString(" OFFSET ")
		b.WriteString(strconv.Itoa(limit.Offset))
	}
}

func (sqliteDialector) DefaultValueOf(field *schema.Field) clause.Expression {
	if field.AutoIncrement {
		return clause.Expr{SQL: "NULL"}
	}
	return clause.Expr{SQL: "DEFAULT"}
}

func (d sqliteDialector) Migrator(db *gorm.DB) gorm.Migrator {
	return migrator.Migrator{Config: migrator.Config{DB: db, Dialector: d}}
}

func (sqliteDialector) BindVarTo(w clause.Writer, _ *gorm.Statement, _ any) { w.WriteByte('?') }

// QuoteTo quotes each dot-separated part of an identifier in backticks
// (table.column), doubling backticks inside.
func (sqliteDialector) QuoteTo(w clause.Writer, s string) {
	for i, part := range strings.Split(s, ".") {
		if i > 0 {
			w.WriteByte('.')
		}
		part = strings.Trim(part, "`")
		w.WriteByte('`')
		w.WriteString(strings.ReplaceAll(part, "`", "``"))
		w.WriteByte('`')
	}
}

func (sqliteDialector) Explain(sql string, vars ...any) string {
	return logger.ExplainSQL(sql, nil, `"`, vars...)
}

func (sqliteDialector) DataTypeOf(field *schema.Field) string {
	switch field.DataType {
	case schema.Bool:
		return "numeric"
	case schema.Int, schema.Uint:
		if field.AutoIncrement {
			return "integer PRIMARY KEY AUTOINCREMENT"
		}
		return "integer"
	case schema.Float:
		return "real"
	case schema.String:
		return "text"
	case schema.Time:
		return "datetime"
	case schema.Bytes:
		return "blob"
	}
	return string(field.DataType)
}

func (sqliteDialector) SavePoint(tx *gorm.DB, name string) error {
	return tx.Exec("SAVEPOINT " + name).Error
}

func (sqliteDialector) RollbackTo(tx *gorm.DB, name string) error {
	return tx.Exec("ROLLBACK TO SAVEPOINT " + name).Error
}

// Translate maps constraint violations to gorm's errors (TranslateError).
func (sqliteDialector) Translate(err error) error {
	if e, ok := err.(*sqlite.Error); ok {
		switch e.Code() {
		// The driver's error stays wrapped (as gorm's postgres driver
		// does), so the store can tell which index refused a row.
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", gorm.ErrDuplicatedKey, e)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %w", gorm.ErrForeignKeyViolated, e)
		}
	}
	return err
}
