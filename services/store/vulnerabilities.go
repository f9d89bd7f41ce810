package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateVulnerability inserts v (state detected unless set) and fills its
// ID and timestamps. A title, severity, state or report type GitLab does
// not know is models.ErrInvalidInput.
func (s *Vulnerabilities) CreateVulnerability(ctx context.Context, v *models.Vulnerability) error {
	if v.State == "" {
		v.State = "detected"
	}
	if strings.TrimSpace(v.Title) == "" || !slices.Contains(models.VulnerabilityStates, v.State) ||
		!slices.Contains(models.VulnerabilitySeverities, v.Severity) ||
		!slices.Contains(models.VulnerabilityReportTypes, v.ReportType) {
		return fmt.Errorf("create vulnerability: title, state, severity or report type: %w", models.ErrInvalidInput)
	}
	if v.Identifiers == nil {
		v.Identifiers = []models.VulnerabilityIdentifier{}
	}
	v.ID = 0
	if err := s.conn(ctx).Create(v).Error; err != nil {
		return fmt.Errorf("create vulnerability in project %d: %w", v.ProjectID, translate(err))
	}
	return nil
}

// LoadVulnerability returns vulnerability id, or models.ErrNotFound. It
// does not check permissions: the caller checks access to its project.
func (s *Vulnerabilities) LoadVulnerability(ctx context.Context, id int64) (*models.Vulnerability, error) {
	var v models.Vulnerability
	if err := s.conn(ctx).Where("id = ?", id).Take(&v).Error; err != nil {
		return nil, fmt.Errorf("load vulnerability %d: %w", id, translate(err))
	}
	return &v, nil
}

// VulnerabilityProjectID returns the project of vulnerability id, or
// models.ErrNotFound. It does not check permissions.
func (s *Vulnerabilities) VulnerabilityProjectID(ctx context.Context, id int64) (int64, error) {
	var ids []int64
	if err := s.conn(ctx).Model(&models.Vulnerability{}).Where("id = ?", id).Limit(1).Pluck("project_id", &ids).Error; err != nil {
		return 0, fmt.Errorf("vulnerability %d project: %w", id, translate(err))
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("vulnerability %d: %w", id, models.ErrNotFound)
	}
	return ids[0], nil
}

// ListVulnerabilities returns up to q.Limit vulnerabilities of a project,
// newest first, and whether more follow.
func (s *Vulnerabilities) ListVulnerabilities(ctx context.Context, q models.VulnerabilityQuery) ([]models.Vulnerability, bool, error) {
	db := s.conn(ctx).Where("project_id = ?", q.ProjectID)
	if len(q.Severities) > 0 {
		db = db.Where("severity IN ?", q.Severities)
	}
	if len(q.ReportTypes) > 0 {
		db = db.Where("report_type IN ?", q.ReportTypes)
	}
	if len(q.States) > 0 {
		db = db.Where("state IN ?", q.States)
	}
	if q.BeforeID > 0 {
		db = db.Where("id < ?", q.BeforeID)
	}
	out := []models.Vulnerability{}
	if err := db.Order("id DESC").Limit(q.Limit + 1).Find(&out).Error; err != nil {
		return nil, false, fmt.Errorf("list vulnerabilities of project %d: %w", q.ProjectID, translate(err))
	}
	more := len(out) > q.Limit
	if more {
		out = out[:q.Limit]
	}
	return out, more, nil
}

// ChangeVulnerability applies c to vulnerability id under a row lock,
// records the change in vulnerability_events, and returns the
// vulnerability as stored afterwards. A move to the state it already has
// is models.ErrConflict (GitLab refuses it too); nothing is written then.
func (s *Vulnerabilities) ChangeVulnerability(ctx context.Context, id int64, c models.VulnerabilityChange) (*models.Vulnerability, error) {
	var out models.Vulnerability
	err := s.st.WithTx(ctx, func(tx *Store) error {
		var v models.Vulnerability
		if err := tx.forUpdate(tx.conn(ctx).Where("id = ?", id)).Take(&v).Error; err != nil {
			return translate(err)
		}
		now := tx.clock()
		author := c.AuthorID
		set := map[string]any{"updated_at": now}
		var events []models.VulnerabilityEvent
		if c.State != "" {
			if !slices.Contains(models.VulnerabilityStates, c.State) {
				return fmt.Errorf("state %q: %w", c.State, models.ErrInvalidInput)
			}
			if c.State == v.State {
				return fmt.Errorf("vulnerability %d is already %s: %w", id, v.State, models.ErrConflict)
			}
			set["state"] = c.State
			var reason *string
			switch c.State {
			case "confirmed":
				set["confirmed_at"], set["confirmed_by_id"] = now, author
			case "dismissed":
				if c.DismissalReason != "" {
					if !slices.Contains(models.VulnerabilityDismissalReasons, c.DismissalReason) {
						return fmt.Errorf("dismissal reason %q: %w", c.DismissalReason, models.ErrInvalidInput)
					}
					r := c.DismissalReason
					reason = &r
				}
				set["dismissed_at"], set["dismissed_by_id"], set["dismissal_reason"] = now, author, reason
			case "detected":
				for _, col := range []string{"confirmed_at", "confirmed_by_id", "dismissed_at", "dismissed_by_id",
					"dismissal_reason", "resolved_at", "resolved_by_id"} {
					set[col] = nil
				}
			}
			events = append(events, models.VulnerabilityEvent{VulnerabilityID: id, AuthorID: &author, Kind: "state",
				FromValue: v.State, ToValue: c.State, Comment: c.Comment, DismissalReason: reason, CreatedAt: now})
		}
		if c.Severity != "" {
			if !slices.Contains(models.VulnerabilitySeverities, c.Severity) {
				return fmt.Errorf("severity %q: %w", c.Severity, models.ErrInvalidInput)
			}
			if c.Severity == v.Severity {
				return fmt.Errorf("vulnerability %d already has severity %s: %w", id, v.Severity, models.ErrConflict)
			}
			set["severity"] = c.Severity
			events = append(events, models.VulnerabilityEvent{VulnerabilityID: id, AuthorID: &author, Kind: "severity",
				FromValue: v.Severity, ToValue: c.Severity, Comment: c.Comment, CreatedAt: now})
		}
		if c.IssueID > 0 {
			if v.IssueID != nil {
				return fmt.Errorf("vulnerability %d already has issue %d: %w", id, *v.IssueID, models.ErrConflict)
			}
			set["issue_id"] = c.IssueID
		}
		if err := tx.conn(ctx).Model(&models.Vulnerability{}).Where("id = ?", id).Updates(set).Error; err != nil {
			return translate(err)
		}
		if len(events) > 0 {
			if err := tx.conn(ctx).Create(&events).Error; err != nil {
				return translate(err)
			}
		}
		return translate(tx.conn(ctx).Where("id = ?", id).Take(&out).Error)
	})
	if err != nil {
		return nil, fmt.Errorf("change vulnerability %d: %w", id, err)
	}
	return &out, nil
}
