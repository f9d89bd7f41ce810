package store

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
)

// InsertProject inserts p without CreateProject's checks, as a concurrent
// creation reaches the database after the checks passed: the tests see
// what the unique indexes answer.
func (s *Projects) InsertProject(ctx context.Context, p *models.Project) error {
	return s.insertProject(ctx, p)
}

// SetFTSSelectiveDocs sets how rare a trigram must be for the SQLite search
// to go through the FTS5 index (0: never, but for a term with a trigram no
// row holds) and returns a function restoring it.
func SetFTSSelectiveDocs(n int64) func() {
	old := ftsSelectiveDocs.Swap(n)
	return func() { ftsSelectiveDocs.Store(old) }
}

// FTSSelective is ftsSelective on s's database.
func FTSSelective(s *Store, table, term string) bool { return ftsSelective(s.DB(), table, term) }

// PGFewMatches is pgFewMatches for the merge requests of project matching
// term (title or description), on s's database.
func PGFewMatches(ctx context.Context, s *Store, projectID int64, term string) bool {
	db := s.conn(ctx).Model(&models.MergeRequest{}).Where("merge_requests.project_id IN ?", []int64{projectID})
	return pgFewMatches(s.limits, matchAny(db, term, "merge_requests.title", "merge_requests.description"))
}
