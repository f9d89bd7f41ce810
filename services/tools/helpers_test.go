package tools_test

import (
	"context"
	"sort"

	"gitlab.com/glmcp/glmcp/models"
)

// memStore is an in-memory tools.Store recording what Sync writes.
type memStore struct {
	rows     map[string]models.Tool
	upserted []string
}

func (s *memStore) UpsertTool(_ context.Context, t *models.Tool) error {
	if s.rows == nil {
		s.rows = map[string]models.Tool{}
	}
	s.rows[t.Name] = *t
	s.upserted = append(s.upserted, t.Name)
	return nil
}

func (s *memStore) ListTools(context.Context) ([]models.Tool, error) {
	out := make([]models.Tool, 0, len(s.rows))
	for _, t := range s.rows {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
