package store

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/migrations"
)

// bulkTables are the tables an import (InsertProjectRecords) fills: the
// ones whose statistics a bulk write changes enough to mislead the planner.
var bulkTables = []string{
	"project_members", "labels", "milestones", "issues", "issue_assignees", "issue_links",
	"work_item_parent_links", "merge_requests", "merge_request_assignees", "merge_request_reviewers",
	"approvals", "notes", "ci_pipelines", "ci_jobs", "wiki_pages",
}

// AnalyzeBulkWrite refreshes the planner's statistics of the tables a bulk
// write (a project import) fills, so that the first queries after it are
// planned on the rows that are there. Autovacuum would analyze them too,
// but only once its thresholds and naptime pass: until then a table that
// grew from a thousand rows to half a million is planned as the small one
// (a sequential scan where an index lookup answers, or the reverse).
//
// On PostgreSQL it then merges the pending lists of the tables' GIN
// indexes (the trigram search indexes), so that the searches after an
// import do not each read the rows it left pending; a role that does not
// own the indexes may not, which is logged, not an error.
//
// Call it after the write committed: statistics gathered inside the
// writing transaction see its rows but are published with it, and the
// ANALYZE would lengthen it. On SQLite it runs ANALYZE with a bounded
// analysis_limit (sqlite_stat1 is what SQLite's planner reads).
func (s *Imports) AnalyzeBulkWrite(ctx context.Context) error {
	err := s.conn(ctx).Connection(func(conn *gorm.DB) error {
		if s.dialect == migrations.DialectSQLite {
			// Rows sampled per index; the full scan of a large table
			// would hold the connection for seconds.
			if err := conn.Exec("PRAGMA analysis_limit = 4000").Error; err != nil {
				return err
			}
		}
		for _, t := range bulkTables {
			if err := conn.Exec("ANALYZE " + t).Error; err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
		}
		if s.dialect != migrations.DialectSQLite {
			// Merge the GIN indexes' pending lists, which every search
			// through them reads (see migration 20261207221500): an
			// import leaves up to gin_pending_list_limit in each. Only
			// the indexes' owner may; a role that may not keeps the
			// statistics above and only logs it (searches are then
			// slower until autovacuum merges the lists).
			err := conn.Exec(`SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i
				JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam AND a.amname = 'gin'
				WHERE i.indrelid = ANY (?::regclass[])`, pgTextArray(bulkTables)).Error
			if err != nil {
				s.log.Warn("merge the GIN pending lists after a bulk write", "error", err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("analyze after a bulk write: %w", translate(err))
	}
	return nil
}

// pgTextArray is names as a PostgreSQL array literal ({a,b,…}); the names
// are plain identifiers.
func pgTextArray(names []string) string {
	return "{" + strings.Join(names, ",") + "}"
}
