package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// maxGroupDepth bounds a walk up the group tree (GitLab allows 20 levels).
const maxGroupDepth = 20

// SetToolRule creates or replaces the rule for r.Tool ("" = every write
// tool) on r's project or group, filling r.ID. Exactly one of ProjectID and
// NamespaceID must be set and Rule must be valid, or it is
// models.ErrInvalidInput; an unknown project or group is too.
func (s *Tools) SetToolRule(ctx context.Context, r *models.ToolRule) error {
	if (r.ProjectID == nil) == (r.NamespaceID == nil) || !r.Rule.Valid() {
		return fmt.Errorf("set tool rule: want one project or group and allow, ask or deny: %w", models.ErrInvalidInput)
	}
	now := s.clock()
	return s.st.WithTx(ctx, func(tx *Store) error {
		q := tx.conn(ctx).Model(&models.ToolRule{}).Where("tool = ?", r.Tool)
		if r.ProjectID != nil {
			q = q.Where("project_id = ?", *r.ProjectID)
		} else {
			q = q.Where("namespace_id = ?", *r.NamespaceID)
		}
		res := q.Updates(map[string]any{"rule": string(r.Rule), "updated_at": now})
		if res.Error != nil {
			return fmt.Errorf("set tool rule: %w", translate(res.Error))
		}
		if res.RowsAffected > 0 {
			return nil
		}
		r.ID, r.CreatedAt, r.UpdatedAt = 0, now, now
		if err := tx.conn(ctx).Omit("Path").Create(r).Error; err != nil {
			return fmt.Errorf("set tool rule: %w", translate(err))
		}
		return nil
	})
}

// ListToolRules returns every rule with the full path of its project or
// group, ordered by path, then tool.
func (s *Tools) ListToolRules(ctx context.Context) ([]models.ToolRule, error) {
	rules := []models.ToolRule{}
	err := s.conn(ctx).Table("tool_rules").
		Select("tool_rules.*, COALESCE(projects.path_with_namespace, namespaces.full_path) AS path").
		Joins("LEFT JOIN projects ON projects.id = tool_rules.project_id").
		Joins("LEFT JOIN namespaces ON namespaces.id = tool_rules.namespace_id").
		Order("path, tool_rules.tool").Find(&rules).Error
	if err != nil {
		return nil, fmt.Errorf("list tool rules: %w", translate(err))
	}
	return rules, nil
}

// ToolRulesFor returns the rules for tool (and for every write tool) that
// apply in the project with projectID (0: none) inside the group with
// groupID (0: none), nearest first: the project's, then the group's, then
// each ancestor group's; within one namespace the rule naming the tool
// before the one for every write tool. Path is filled.
func (s *Tools) ToolRulesFor(ctx context.Context, projectID, groupID int64, tool string) ([]models.ToolRule, error) {
	var chain []int64 // group ids, nearest first
	for id, depth := groupID, 0; id != 0 && depth < maxGroupDepth; depth++ {
		g, err := s.st.Groups.FindGroupByID(ctx, id)
		if errors.Is(err, models.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		chain = append(chain, g.ID)
		if g.ParentID == nil {
			break
		}
		id = *g.ParentID
	}
	if projectID == 0 && len(chain) == 0 {
		return nil, nil
	}
	var rules []models.ToolRule
	q := s.conn(ctx).Table("tool_rules").
		Select("tool_rules.*, COALESCE(projects.path_with_namespace, namespaces.full_path) AS path").
		Joins("LEFT JOIN projects ON projects.id = tool_rules.project_id").
		Joins("LEFT JOIN namespaces ON namespaces.id = tool_rules.namespace_id").
		Where("tool_rules.tool IN (?, '')", tool)
	switch {
	case projectID != 0 && len(chain) > 0:
		q = q.Where("(tool_rules.project_id = ? OR tool_rules.namespace_id IN ?)", projectID, chain)
	case projectID != 0:
		q = q.Where("tool_rules.project_id = ?", projectID)
	default:
		q = q.Where("tool_rules.namespace_id IN ?", chain)
	}
	if err := q.Find(&rules).Error; err != nil {
		return nil, fmt.Errorf("tool rules for %q: %w", tool, translate(err))
	}
	rank := func(r models.ToolRule) int {
		level := 0 // the project
		if r.NamespaceID != nil {
			for i, id := range chain {
				if id == *r.NamespaceID {
					level = i + 1
				}
			}
		}
		n := level * 2
		if r.Tool == "" {
			n++
		}
		return n
	}
	slices.SortStableFunc(rules, func(a, b models.ToolRule) int { return rank(a) - rank(b) })
	return rules, nil
}

// UseApproval records that the approval with a.Nonce was answered. A nonce
// already recorded (by any instance) is models.ErrConflict: the primary key
// decides, so two instances racing record it once.
func (s *Tools) UseApproval(ctx context.Context, a *models.UsedApproval) error {
	if strings.TrimSpace(a.Nonce) == "" {
		return fmt.Errorf("use approval: empty nonce: %w", models.ErrInvalidInput)
	}
	a.UsedAt = s.clock()
	if err := s.conn(ctx).Create(a).Error; err != nil {
		return fmt.Errorf("use approval: %w", translate(err))
	}
	return nil
}
