package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// UpsertTool stores the definition t under t.Name: it inserts a new tool
// (with t.Enabled as given) or updates an existing one's definition —
// title, description, schemas, annotations, toolset, edition and aliases.
// The enabled flag of an existing tool is kept (it is the operator's
// choice; change it with SetToolEnabled), and so are its ID and created_at,
// and its description when an operator set one with UpdateToolDescription.
// On return t holds the stored row.
//
// The catalog version is bumped, in the same transaction, only when
// something changed: upserting an identical definition (JSON compared by
// value, not bytes) writes nothing, so a restart that syncs the built-in
// catalog does not notify anyone.
//
// A name or alias already used by another tool (as its name or an alias) is
// models.ErrConflict; an empty name, toolset or input schema, invalid JSON
// or an unknown edition is models.ErrInvalidInput.
func (s *Tools) UpsertTool(ctx context.Context, t *models.Tool) error {
	if err := normalizeTool(t); err != nil {
		return fmt.Errorf("upsert tool %q: %w", t.Name, err)
	}
	// Two instances syncing the same new tool race on its name; the loser
	// sees the winner's row on the second attempt.
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		err = s.st.WithTx(ctx, func(tx *Store) error { return tx.Tools.upsertTool(ctx, t) })
		if !errors.Is(err, errNameRace) {
			break
		}
	}
	if errors.Is(err, errNameRace) {
		err = models.ErrConflict
	}
	if err != nil {
		return fmt.Errorf("upsert tool %q: %w", t.Name, err)
	}
	return nil
}

var errNameRace = errors.New("tool name taken concurrently")

// UnchangedTools reports, in one read of the catalog, which of ts the store
// already holds exactly as UpsertTool would leave them: the same definition
// (an operator's description kept), valid, and with its name and aliases
// used by no other tool. Upserting one of those writes nothing, so a caller
// syncing a whole catalog (every start) can skip them and upsert only the
// rest: one query instead of a transaction and a read of every other tool
// for each definition. ts are not modified.
func (s *Tools) UnchangedTools(ctx context.Context, ts []*models.Tool) (map[string]bool, error) {
	var rows []models.Tool
	if err := s.conn(ctx).Find(&rows).Error; err != nil {
		return nil, translate(err)
	}
	byName := make(map[string]*models.Tool, len(rows))
	owners := map[string][]int64{} // name or alias → the tools using it
	for i := range rows {
		r := &rows[i]
		byName[r.Name] = r
		owners[r.Name] = append(owners[r.Name], r.ID)
		for _, a := range r.Aliases {
			owners[a] = append(owners[a], r.ID)
		}
	}
	out := map[string]bool{}
	for _, t := range ts {
		c := *t
		if normalizeTool(&c) != nil {
			continue
		}
		existing := byName[c.Name]
		if existing == nil {
			continue
		}
		if existing.DescriptionCustomized {
			c.Description = existing.Description
		}
		if !sameToolDefinition(existing, &c) {
			continue
		}
		free := true
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			for _, id := range owners[n] {
				if id != existing.ID {
					free = false
				}
			}
		}
		if free {
			out[c.Name] = true
		}
	}
	return out, nil
}

func (s *Tools) upsertTool(ctx context.Context, t *models.Tool) error {
	var existing models.Tool
	err := s.forUpdate(s.conn(ctx)).Where("name = ?", t.Name).Take(&existing).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		if err := s.checkToolNames(ctx, 0, t); err != nil {
			return err
		}
		t.ID = 0
		if err := s.conn(ctx).Create(t).Error; err != nil {
			if err = translate(err); errors.Is(err, models.ErrConflict) {
				return errNameRace
			}
			return err
		}
		return s.bumpCatalogVersion(ctx)
	case err != nil:
		return translate(err)
	}
	if err := s.checkToolNames(ctx, existing.ID, t); err != nil {
		return err
	}
	if existing.DescriptionCustomized { // the operator's words win
		t.Description, t.DescriptionCustomized = existing.Description, true
	}
	if sameToolDefinition(&existing, t) {
		*t = existing
		return nil
	}
	now := s.clock()
	err = s.conn(ctx).Model(&models.Tool{}).Where("id = ?", existing.ID).Updates(map[string]any{
		"title":         t.Title,
		"description":   t.Description,
		"input_schema":  t.InputSchema,
		"output_schema": t.OutputSchema,
		"annotations":   t.Annotations,
		"toolset":       t.Toolset,
		"edition":       t.Edition,
		"aliases":       t.Aliases,
		"updated_at":    now,
	}).Error
	if err != nil {
		return translate(err)
	}
	t.ID, t.Enabled, t.CreatedAt, t.UpdatedAt = existing.ID, existing.Enabled, existing.CreatedAt, now
	return s.bumpCatalogVersion(ctx)
}

// CreateTools inserts new tools in bulk, in one transaction and batches
// of 200 rows, and bumps the catalog version once. It is for catalogs too
// large to upsert one by one (fixtures, imports). Each tool is validated as
// UpsertTool validates it; a name or alias used by a stored tool or by
// another tool of the list is models.ErrConflict, and then nothing is
// written. On return each tool holds its stored row.
func (s *Tools) CreateTools(ctx context.Context, tools []models.Tool) error {
	if len(tools) == 0 {
		return nil
	}
	for i := range tools {
		if err := normalizeTool(&tools[i]); err != nil {
			return fmt.Errorf("create tool %q: %w", tools[i].Name, err)
		}
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		var stored []models.Tool
		if err := tx.conn(ctx).Select("id", "name", "aliases").Find(&stored).Error; err != nil {
			return translate(err)
		}
		taken := map[string]string{} // name or alias → owning tool
		for _, o := range stored {
			for _, n := range append([]string{o.Name}, o.Aliases...) {
				taken[n] = o.Name
			}
		}
		now := tx.clock()
		for i := range tools {
			t := &tools[i]
			for _, n := range append([]string{t.Name}, t.Aliases...) {
				if owner, ok := taken[n]; ok {
					return fmt.Errorf("create tool %q: name %q is used by tool %q: %w", t.Name, n, owner, models.ErrConflict)
				}
				taken[n] = t.Name
			}
			t.ID = 0
			if t.CreatedAt.IsZero() {
				t.CreatedAt, t.UpdatedAt = now, now
			}
		}
		if err := tx.conn(ctx).CreateInBatches(tools, 200).Error; err != nil {
			return translate(err)
		}
		return tx.Tools.bumpCatalogVersion(ctx)
	})
	if err != nil {
		return fmt.Errorf("create tools: %w", err)
	}
	return nil
}

// ListTools returns every tool, enabled or not, ordered by name.
func (s *Tools) ListTools(ctx context.Context) ([]models.Tool, error) {
	tools := []models.Tool{}
	if err := s.conn(ctx).Order("name").Find(&tools).Error; err != nil {
		return nil, fmt.Errorf("list tools: %w", translate(err))
	}
	return tools, nil
}

// FindToolByName returns the tool called name, or the tool that has name
// among its aliases; a tool's own name wins over another's alias. Disabled
// tools are returned too. No match is models.ErrNotFound.
func (s *Tools) FindToolByName(ctx context.Context, name string) (*models.Tool, error) {
	t, err := s.findTool(ctx, s.conn(ctx), name)
	if err != nil {
		return nil, fmt.Errorf("find tool %q: %w", name, err)
	}
	return t, nil
}

// SetToolEnabled enables or disables the tool called name (or aliased
// name). It reports whether the flag changed; only a change bumps the
// catalog version. An unknown tool is models.ErrNotFound.
func (s *Tools) SetToolEnabled(ctx context.Context, name string, enabled bool) (changed bool, err error) {
	err = s.st.WithTx(ctx, func(tx *Store) error {
		t, err := tx.Tools.findTool(ctx, tx.forUpdate(tx.conn(ctx)), name)
		if err != nil {
			return err
		}
		if t.Enabled == enabled {
			return nil
		}
		if err := tx.Tools.updateTool(ctx, t.ID, map[string]any{"enabled": enabled}); err != nil {
			return err
		}
		changed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("set tool %q enabled=%t: %w", name, enabled, err)
	}
	return changed, nil
}

// UpdateToolDescription replaces the description of the tool called name
// (or aliased name) and bumps the catalog version if it changed. An empty
// description is models.ErrInvalidInput; an unknown tool
// models.ErrNotFound.
func (s *Tools) UpdateToolDescription(ctx context.Context, name, description string) error {
	if strings.TrimSpace(description) == "" {
		return fmt.Errorf("update tool %q description: empty description: %w", name, models.ErrInvalidInput)
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		t, err := tx.Tools.findTool(ctx, tx.forUpdate(tx.conn(ctx)), name)
		if err != nil {
			return err
		}
		if t.Description == description && t.DescriptionCustomized {
			return nil
		}
		return tx.Tools.updateTool(ctx, t.ID, map[string]any{"description": description, "description_customized": true})
	})
	if err != nil {
		return fmt.Errorf("update tool %q description: %w", name, err)
	}
	return nil
}

// DeleteTool removes the tool called name (not an alias) and bumps the
// catalog version. An unknown tool is models.ErrNotFound.
func (s *Tools) DeleteTool(ctx context.Context, name string) error {
	err := s.st.WithTx(ctx, func(tx *Store) error {
		res := tx.conn(ctx).Where("name = ?", name).Delete(&models.Tool{})
		if res.Error != nil {
			return translate(res.Error)
		}
		if res.RowsAffected == 0 {
			return models.ErrNotFound
		}
		return tx.Tools.bumpCatalogVersion(ctx)
	})
	if err != nil {
		return fmt.Errorf("delete tool %q: %w", name, err)
	}
	return nil
}

// updateTool sets columns (and updated_at) of tool id and bumps the
// catalog version. Run it inside a transaction.
func (s *Tools) updateTool(ctx context.Context, id int64, columns map[string]any) error {
	columns["updated_at"] = s.clock()
	if err := s.conn(ctx).Model(&models.Tool{}).Where("id = ?", id).Updates(columns).Error; err != nil {
		return translate(err)
	}
	return s.bumpCatalogVersion(ctx)
}

// findTool looks name up as a name, then as an alias, on q.
func (s *Tools) findTool(ctx context.Context, q *gorm.DB, name string) (*models.Tool, error) {
	var t models.Tool
	err := q.Session(&gorm.Session{}).Where("name = ?", name).Take(&t).Error
	if err == nil {
		return &t, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, translate(err)
	}
	aliasMatch := `EXISTS (SELECT 1 FROM json_each(tools.aliases) WHERE json_each.value = ?)`
	if s.dialect == migrations.DialectPostgres {
		aliasMatch = `tools.aliases::jsonb @> jsonb_build_array(?::text)`
	}
	if err := q.Session(&gorm.Session{}).Where(aliasMatch, name).Order("name").Take(&t).Error; err != nil {
		return nil, translate(err)
	}
	return &t, nil
}

// checkToolNames refuses a definition whose name or aliases collide with
// another tool's name or aliases (selfID is the tool's own row, 0 if new).
func (s *Tools) checkToolNames(ctx context.Context, selfID int64, t *models.Tool) error {
	var others []models.Tool
	if err := s.conn(ctx).Select("id", "name", "aliases").Where("id <> ?", selfID).Find(&others).Error; err != nil {
		return translate(err)
	}
	taken := map[string]string{} // name or alias → owning tool
	for _, o := range others {
		taken[o.Name] = o.Name
		for _, a := range o.Aliases {
			taken[a] = o.Name
		}
	}
	for _, n := range append([]string{t.Name}, t.Aliases...) {
		if owner, ok := taken[n]; ok {
			return fmt.Errorf("name %q is used by tool %q: %w", n, owner, models.ErrConflict)
		}
	}
	return nil
}

// normalizeTool validates t and fills defaults.
func normalizeTool(t *models.Tool) error {
	t.Name = strings.TrimSpace(t.Name)
	if t.Name == "" || strings.TrimSpace(t.Toolset) == "" {
		return fmt.Errorf("name and toolset are required: %w", models.ErrInvalidInput)
	}
	if t.Edition == "" {
		t.Edition = models.EditionCE
	}
	if t.Edition != models.EditionCE && t.Edition != models.EditionEE {
		return fmt.Errorf("edition %q: %w", t.Edition, models.ErrInvalidInput)
	}
	if len(t.InputSchema) == 0 {
		return fmt.Errorf("input schema is required: %w", models.ErrInvalidInput)
	}
	if len(t.Annotations) == 0 {
		t.Annotations = models.JSON(`{}`)
	}
	for what, doc := range map[string]models.JSON{"input schema": t.InputSchema, "output schema": t.OutputSchema, "annotations": t.Annotations} {
		if len(doc) > 0 && !json.Valid(doc) {
			return fmt.Errorf("%s is not valid JSON: %w", what, models.ErrInvalidInput)
		}
	}
	if t.Aliases == nil {
		t.Aliases = models.StringList{}
	}
	if slices.Contains(t.Aliases, t.Name) || slices.Contains(t.Aliases, "") {
		return fmt.Errorf("aliases %q: %w", []string(t.Aliases), models.ErrInvalidInput)
	}
	return nil
}

func sameToolDefinition(a, b *models.Tool) bool {
	return a.Title == b.Title && a.Description == b.Description &&
		a.Toolset == b.Toolset && a.Edition == b.Edition &&
		slices.Equal(a.Aliases, b.Aliases) &&
		sameJSON(a.InputSchema, b.InputSchema) &&
		sameJSON(a.OutputSchema, b.OutputSchema) &&
		sameJSON(a.Annotations, b.Annotations)
}

// sameJSON compares two documents by value (jsonb reorders keys).
func sameJSON(a, b models.JSON) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// forUpdate adds FOR UPDATE on PostgreSQL. SQLite has no row locks and
// needs none: its transactions take the database write lock when they
// begin (see Open).
func (s *core) forUpdate(q *gorm.DB) *gorm.DB {
	if s.dialect == migrations.DialectPostgres {
		return q.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
	}
	return q
}
