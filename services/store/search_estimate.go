package store

import (
	"context"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"
)

// fewMatchRows is how many matches PostgreSQL's planner may expect of a
// search for it to be read through the trigram indexes and sorted,
// rather than by walking the page's ordered index and testing each row:
// the threshold the SQLite search uses for its FTS5 index
// (ftsSelectiveDocs), for the same reason.
const fewMatchRows = 2000

// pgFewMatches reports whether PostgreSQL's planner expects at most
// fewMatchRows rows of db (one table with its conditions, a search's
// ILIKE among them), from the row estimate of EXPLAIN.
//
// Why ask: the planner's row estimate of a substring search is good (it
// matches the term against the column's statistics sample), but it
// prices ILIKE as one operator whatever the text's length, so for a page
// in index order (LIMIT n) it chose to walk the newest rows testing each
// long description, expecting to stop early, over the trigram indexes
// and a sort of a hundred rows (list_merge_requests: 722 rows walked for
// 21 of 111 matches, 1.9 ms, against 111 rows and 0.7 ms). The caller
// orders by an expression no index provides when the matches are few,
// which leaves the planner the bitmap scan of the trigram indexes.
//
// An error (or another store than PostgreSQL) answers false: the query
// then runs as written, which is correct, only maybe slower. Inside a
// transaction it answers false without asking: a failed statement there
// would abort the transaction. The EXPLAIN has the store's statement
// deadline d (it runs beside gorm's callbacks, which would give it one),
// so a stalled database holds it no longer than any other statement.
func pgFewMatches(d *deadlines, db *gorm.DB) bool {
	if db.Dialector.Name() != "postgres" {
		return false
	}
	if _, inTx := db.Statement.ConnPool.(gorm.TxCommitter); inTx {
		return false
	}
	stmt := db.Session(&gorm.Session{DryRun: true}).Select("1").Find(&[]struct{}{}).Statement
	if stmt.Error != nil {
		return false
	}
	ctx := stmt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if d != nil && d.statement > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.statement)
		defer cancel()
	}
	rows, err := stmt.ConnPool.QueryContext(ctx, "EXPLAIN (FORMAT JSON) "+stmt.SQL.String(), stmt.Vars...)
	if err != nil {
		return false
	}
	defer rows.Close()
	var raw []byte
	if !rows.Next() || rows.Scan(&raw) != nil {
		return false
	}
	n, err := planRows(raw)
	return err == nil && n <= fewMatchRows
}

// planRows is the row estimate of the top node of an EXPLAIN (FORMAT
// JSON) answer.
func planRows(raw []byte) (float64, error) {
	var plans []struct {
		Plan struct {
			Rows *float64 `json:"Plan Rows"`
		}
	}
	if err := json.Unmarshal(raw, &plans); err != nil {
		return 0, err
	}
	if len(plans) != 1 || plans[0].Plan.Rows == nil {
		return 0, fmt.Errorf("no row estimate in %.200s", raw)
	}
	return *plans[0].Plan.Rows, nil
}
