package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// DefaultLabelColor is the color of a label created without one.
const DefaultLabelColor = "#6699cc"

var labelColor = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// CreateLabel inserts l and fills its ID and timestamps. Color defaults to
// DefaultLabelColor and must be "#RRGGBB". A name already used in the
// project is models.ErrConflict; an empty name, a bad color or a missing
// project is models.ErrInvalidInput.
func (s *Issues) CreateLabel(ctx context.Context, l *models.Label) error {
	if err := prepareLabel(l); err != nil {
		return err
	}
	if err := s.conn(ctx).Create(l).Error; err != nil {
		return fmt.Errorf("create label %q in project %d: %w", l.Name, l.ProjectID, translate(err))
	}
	return nil
}

// EnsureLabel makes sure project l.ProjectID has a label named l.Name and
// fills l with the stored row: the existing label (its color and
// description kept) or the one inserted from l. It is one statement
// (INSERT … ON CONFLICT … RETURNING), so writers racing to create the same
// label all get it and none fails. Validation is CreateLabel's.
func (s *Issues) EnsureLabel(ctx context.Context, l *models.Label) error {
	if err := prepareLabel(l); err != nil {
		return err
	}
	now := s.clock()
	// DO UPDATE (a no-op assignment) rather than DO NOTHING: RETURNING
	// then yields the existing row too, in both dialects.
	var got []models.Label
	err := s.conn(ctx).Raw(`INSERT INTO labels (project_id, name, color, description, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (project_id, name) DO UPDATE SET name = excluded.name
RETURNING id, project_id, name, color, description, created_at, updated_at`,
		l.ProjectID, l.Name, l.Color, l.Description, now, now).Scan(&got).Error
	if err != nil {
		return fmt.Errorf("ensure label %q in project %d: %w", l.Name, l.ProjectID, translate(err))
	}
	if len(got) != 1 {
		return fmt.Errorf("ensure label %q in project %d: %d rows returned", l.Name, l.ProjectID, len(got))
	}
	*l = got[0]
	return nil
}

// prepareLabel checks l and fills its defaults.
func prepareLabel(l *models.Label) error {
	if strings.TrimSpace(l.Name) == "" {
		return fmt.Errorf("create label in project %d: empty name: %w", l.ProjectID, models.ErrInvalidInput)
	}
	if l.Color == "" {
		l.Color = DefaultLabelColor
	}
	if !labelColor.MatchString(l.Color) {
		return fmt.Errorf("create label %q: color %q: %w", l.Name, l.Color, models.ErrInvalidInput)
	}
	l.ID = 0
	return nil
}

// FindLabelsByID returns the labels of project projectID whose ids are in
// ids, ordered by id; ids of other projects' labels are left out.
func (s *Issues) FindLabelsByID(ctx context.Context, projectID int64, ids []int64) ([]models.Label, error) {
	out := []models.Label{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.conn(ctx).Where("project_id = ? AND id IN ?", projectID, ids).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("find labels of project %d by id: %w", projectID, translate(err))
	}
	return out, nil
}

// FindLabelsByName returns the labels of project projectID whose names are
// in names (exact match, as GitLab matches label titles), ordered by name.
func (s *Issues) FindLabelsByName(ctx context.Context, projectID int64, names []string) ([]models.Label, error) {
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
func (s *Issues) SearchLabels(ctx context.Context, projectIDs []int64, terms []string, limit int) ([]models.Label, error) {
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
