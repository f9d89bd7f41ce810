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
