package store_test

import (
	"context"
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// forEachStore runs fn against a fresh migrated store on each database:
// PostgreSQL (skipped without GLMCP_TEST_DATABASE_URL, unless CI=true) and
// SQLite (always).
func forEachStore(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	storetest.Each(t, fn)
}

func mustCreateUser(t *testing.T, s *store.Store, username string) *models.User {
	t.Helper()
	u := &models.User{Username: username, Name: username, Email: username + "@example.com"}
	if err := s.Users.CreateUser(context.Background(), u); err != nil {
		t.Fatalf("CreateUser(%q) = %v", username, err)
	}
	return u
}

// mustCreateProject creates group/project (public) and returns the project.
func mustCreateProject(t *testing.T, s *store.Store, group, project string) *models.Project {
	t.Helper()
	ctx := context.Background()
	g, err := s.Groups.FindGroupByFullPath(ctx, group)
	if errors.Is(err, models.ErrNotFound) {
		g = &models.Group{Name: group, Path: group, Visibility: models.VisibilityPublic}
		err = s.Groups.CreateGroup(ctx, g)
	}
	if err != nil {
		t.Fatalf("group %q: %v", group, err)
	}
	p := &models.Project{Name: project, Path: project, NamespaceID: g.ID, Visibility: models.VisibilityPublic}
	if err := s.Projects.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject(%q) = %v", project, err)
	}
	return p
}

// wantErr fails t unless err wraps want (nil: no error).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("%s: unexpected error %v", what, err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("%s: error = %v, want %v", what, err, want)
	}
}

func countRows(t *testing.T, s *store.Store, table string) int64 {
	t.Helper()
	var n int64
	if err := s.DB().Table(table).Count(&n).Error; err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}
