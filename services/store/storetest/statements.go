package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/services/store"
)

// Statements records the SQL statements a store runs on behalf of the
// contexts returned by its Context method (and only those, so background
// work on the same store does not count). Transaction control (BEGIN,
// COMMIT) is not a statement here. Create it with CountStatements.
type Statements struct {
	mu  sync.Mutex
	sql []string
}

type statementsKey struct{}

// CountStatements registers gorm callbacks on st that record every
// statement (query, row, raw, create, update, delete) run with a context
// from the returned recorder's Context. The callbacks stay registered for
// st's lifetime; call it once per store.
func CountStatements(tb testing.TB, st *store.Store) *Statements {
	tb.Helper()
	c := &Statements{}
	record := func(db *gorm.DB) {
		if db.Statement.Context == nil || db.Statement.Context.Value(statementsKey{}) != c {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.sql = append(c.sql, db.Statement.SQL.String())
	}
	name := fmt.Sprintf("storetest:count:%p", c)
	cb := st.DB().Callback()
	for _, reg := range []struct {
		what string
		err  error
	}{
		{"query", cb.Query().After("gorm:query").Register(name, record)},
		{"row", cb.Row().After("gorm:row").Register(name, record)},
		{"raw", cb.Raw().After("gorm:raw").Register(name, record)},
		{"create", cb.Create().After("gorm:create").Register(name, record)},
		{"update", cb.Update().After("gorm:update").Register(name, record)},
		{"delete", cb.Delete().After("gorm:delete").Register(name, record)},
	} {
		if reg.err != nil {
			tb.Fatalf("register statement counter (%s): %v", reg.what, reg.err)
		}
	}
	return c
}

// Context returns ctx marked so that the statements run with it are
// recorded.
func (c *Statements) Context(ctx context.Context) context.Context {
	return store.WithStatementObserver(context.WithValue(ctx, statementsKey{}, c), c)
}

// ObserveStatement records a statement the store ran outside gorm
// (store.StatementObserver).
func (c *Statements) ObserveStatement(sql string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = append(c.sql, sql)
}

// Reset forgets the statements recorded so far.
func (c *Statements) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = nil
}

// SQL returns the statements recorded since the last Reset, in order (SQL
// text with placeholders, no parameters).
func (c *Statements) SQL() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sql...)
}
