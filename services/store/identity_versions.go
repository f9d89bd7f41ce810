package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// IdentityVersion returns the embedded store's identity version: a counter
// that triggers on personal_access_tokens, oauth_access_tokens and users
// bump whenever a change could alter what a credential resolves to, made
// by any writer of the file (migration 20261201060000). The identity cache
// reads it before every use. PostgreSQL announces the same changes with
// NOTIFY instead and has no counter.
//
// The same statement reads the issue view sequence (migration
// 20261201200000) into ctx's request marks, if any (WithRequestMarks):
// the request's get_issue then needs no statement for a view nothing
// changed since.
func (s *Users) IdentityVersion(ctx context.Context) (int64, error) {
	var v, seq int64
	// database/sql directly: this runs on every request, and a prepared
	// statement of the pool (compiled once per connection) is all it needs.
	stmt, err := s.identityStmt.get(ctx, s.core)
	if err != nil {
		return 0, err
	}
	// Not cancellable: see viewSeq.
	if err := stmt.QueryRowContext(context.WithoutCancel(ctx)).Scan(&v, &seq); err != nil {
		return 0, fmt.Errorf("read identity version: %w", translate(err))
	}
	noteRequestSeq(ctx, seq)
	return v, nil
}

// identityVersionQuery reads the identity version and the issue view
// sequence in one snapshot.
const identityVersionQuery = "SELECT (SELECT version FROM identity_versions WHERE id = 1), " +
	"(SELECT version FROM issue_view_versions WHERE id = -1)"

// lazyStmt prepares its statement on first use (after migrations), and
// again after a failed attempt.
type lazyStmt struct {
	query string
	mu    sync.Mutex
	stmt  *sql.Stmt
}

func (l *lazyStmt) get(ctx context.Context, s *core) (*sql.Stmt, error) {
	l.mu.Lock()
	stmt := l.stmt
	l.mu.Unlock()
	if stmt != nil {
		return stmt, nil
	}
	db, err := s.st.SQLDB()
	if err != nil {
		return nil, err
	}
	// Prepared off the lock: a database that does not answer holds this
	// caller (under its own deadline), not every other one waiting here.
	if stmt, err = db.PrepareContext(ctx, l.query); err != nil {
		return nil, fmt.Errorf("prepare %q: %w", l.query, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stmt != nil { // another caller prepared it meanwhile
		_ = stmt.Close()
		return l.stmt, nil
	}
	l.stmt = stmt
	return stmt, nil
}
