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
