package tools

import (
	"fmt"
	"sort"

	"gitlab.com/glmcp/glmcp/models"
)

// addTransient registers the code-only definitions (Options.Transient)
// beside the stored ones; names must be unique across both.
func (s *Service) addTransient(defs []Definition) error {
	for i := range defs {
		d := &defs[i]
		if _, dup := s.defs[d.Name]; dup {
			return fmt.Errorf("duplicate tool %q", d.Name)
		}
		if _, err := compileSchema(d.Name, d.InputSchema); err != nil {
			return err
		}
		row, err := d.Model()
		if err != nil {
			return err
		}
		s.defs[d.Name] = d
		s.rows[d.Name] = row
		s.transient = append(s.transient, *row)
	}
	sort.Slice(s.transient, func(i, j int) bool { return s.transient[i].Name < s.transient[j].Name })
	return nil
}

// isTransient reports whether name is a transient definition.
func (s *Service) isTransient(name string) bool {
	i := sort.Search(len(s.transient), func(i int) bool { return s.transient[i].Name >= name })
	return i < len(s.transient) && s.transient[i].Name == name
}

// withTransient returns the store rows with the transient definitions
// added; a store row of a transient name (left by an older build) is
// dropped so the code's copy is the only one.
func (s *Service) withTransient(rows []models.Tool) []models.Tool {
	if len(s.transient) == 0 {
		return rows
	}
	out := make([]models.Tool, 0, len(rows)+len(s.transient))
	for _, r := range rows {
		if !s.isTransient(r.Name) {
			out = append(out, r)
		}
	}
	return append(out, s.transient...)
}
