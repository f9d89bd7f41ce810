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
func (s *Store) CreateLabel(ctx context.Context, l *models.Label) error {
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
	if err := s.conn(ctx).Create(l).Error; err != nil {
		return fmt.Errorf("create label %q in project %d: %w", l.Name, l.ProjectID, translate(err))
	}
	return nil
}
