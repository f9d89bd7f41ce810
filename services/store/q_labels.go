package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// FindLabelsByName returns the labels of project projectID whose names are
// in names (exact match, as GitLab matches label titles), ordered by name.
func (s *Store) FindLabelsByName(ctx context.Context, projectID int64, names []string) ([]models.Label, error) {
	out := []models.Label{}
	if len(names) == 0 {
		return out, nil
	}
	err := s.conn(ctx).Where("project_id = ? AND name IN ?", projectID, names).Order("name").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("find labels of project %d: %w", projectID, translate(err))
	}
	return out, nil
}

// SearchLabels returns up to limit labels of the given projects whose name
// contains any of terms (case-insensitive; no terms: every label), ordered
// by name then id.
func (s *Store) SearchLabels(ctx context.Context, projectIDs []int64, terms []string, limit int) ([]models.Label, error) {
	out := []models.Label{}
	if len(projectIDs) == 0 {
		return out, nil
	}
	q := s.conn(ctx).Where("project_id IN ?", projectIDs)
	var conds []string
	var args []any
	for _, t := range terms {
		if t = strings.TrimSpace(t); t != "" {
			conds = append(conds, `lower(name) LIKE ? ESCAPE '\'`)
			args = append(args, likeContains(t))
		}
	}
	if len(conds) > 0 {
		q = q.Where("("+strings.Join(conds, " OR ")+")", args...)
	}
	if err := q.Order("name, id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("search labels: %w", translate(err))
	}
	return out, nil
}
