package store

import (
	"context"
	"database/sql"

	"gorm.io/gorm"
)

// queryRows runs the read statement l with args through database/sql,
// prepared once per pooled connection: no gorm statement is built, which
// for a wide statement on the hot path (FindIssueView) was a tenth of the
// request's CPU. The statement keeps the rules every gorm statement runs
// under (see deadlines): the statement timeout, a timeout or lost
// connection answered as models.ErrStoreUnavailable, and the outage log.
// On a Store bound to a transaction it runs, through gorm, on the
// transaction (alt is then l's text with ? placeholders).
//
// done closes rows and releases the deadline: call it once done reading.
func (s *core) queryRows(ctx context.Context, l *lazyStmt, alt string, args ...any) (rows *sql.Rows, done func(), err error) {
	if _, inTx := s.db.Statement.ConnPool.(gorm.TxCommitter); inTx {
		rows, err := s.conn(ctx).Raw(alt, args...).Rows()
		if err != nil {
			return nil, nil, translate(err)
		}
		return rows, func() { _ = rows.Close() }, nil
	}
	if o, ok := ctx.Value(observerKey{}).(StatementObserver); ok {
		o.ObserveStatement(l.query)
	}
	qctx, cancel := ctx, context.CancelFunc(func() {})
	if s.limits.statement > 0 {
		qctx, cancel = context.WithTimeout(ctx, s.limits.statement)
	}
	stmt, err := l.get(qctx, s)
	if err == nil {
		rows, err = stmt.QueryContext(qctx, args...)
	}
	if err != nil {
		timedOut := qctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		if timedOut || unavailable(err) {
			err = unavailableError(err)
			s.limits.outage.fail(ctx, err)
		}
		return nil, nil, translate(err)
	}
	s.limits.outage.ok()
	return rows, func() { _ = rows.Close(); cancel() }, nil
}

// StatementObserver sees the statements a Store runs outside gorm (see
// queryRows), as gorm callbacks see the others: tests count round trips
// with it (storetest.CountStatements).
type StatementObserver interface {
	ObserveStatement(sql string)
}

type observerKey struct{}

// WithStatementObserver returns ctx carrying o: the statements run outside
// gorm with it are reported to o.
func WithStatementObserver(ctx context.Context, o StatementObserver) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}
