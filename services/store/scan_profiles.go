package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// FindScanProfile returns scan profile id, or models.ErrNotFound. It does
// not check permissions: the caller checks its group.
func (s *Vulnerabilities) FindScanProfile(ctx context.Context, id int64) (*models.ScanProfile, error) {
	var p models.ScanProfile
	if err := s.conn(ctx).Where("id = ?", id).Take(&p).Error; err != nil {
		return nil, fmt.Errorf("load scan profile %d: %w", id, translate(err))
	}
	return &p, nil
}

// CreateScanProfile inserts p (a profile of root group p.NamespaceID) and
// fills its ID and timestamps. A blank name or a scan type GitLab does not
// know is models.ErrInvalidInput; a second recommended profile of one type
// in one group is models.ErrConflict.
func (s *Vulnerabilities) CreateScanProfile(ctx context.Context, p *models.ScanProfile) error {
	if strings.TrimSpace(p.Name) == "" || !slices.Contains(models.ScanProfileTypes, p.ScanType) {
		return fmt.Errorf("create scan profile: name or scan type %q: %w", p.ScanType, models.ErrInvalidInput)
	}
	p.ID = 0
	if err := s.conn(ctx).Create(p).Error; err != nil {
		return fmt.Errorf("create scan profile %q in group %d: %w", p.Name, p.NamespaceID, translate(err))
	}
	return nil
}

// DefaultScanProfile returns root group namespaceID's GitLab-recommended
// profile of scanType, created from models.DefaultScanProfiles the first
// time it is asked for; a scan type without a default is
// models.ErrNotFound. It is one statement (INSERT … ON CONFLICT …
// RETURNING), so callers racing to create it all get the same row.
func (s *Vulnerabilities) DefaultScanProfile(ctx context.Context, namespaceID int64, scanType string) (*models.ScanProfile, error) {
	d, ok := models.DefaultScanProfiles[scanType]
	if !ok {
		return nil, fmt.Errorf("default scan profile %q: %w", scanType, models.ErrNotFound)
	}
	now := s.clock()
	var got []models.ScanProfile
	err := s.conn(ctx).Raw(`INSERT INTO security_scan_profiles
    (namespace_id, scan_type, name, description, gitlab_recommended, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace_id, scan_type) WHERE gitlab_recommended DO UPDATE SET scan_type = excluded.scan_type
RETURNING id, namespace_id, scan_type, name, description, gitlab_recommended, created_at, updated_at`,
		namespaceID, d.ScanType, d.Name, d.Description, true, now, now).Scan(&got).Error
	if err != nil {
		return nil, fmt.Errorf("default scan profile %q of group %d: %w", scanType, namespaceID, translate(err))
	}
	if len(got) != 1 {
		return nil, fmt.Errorf("default scan profile %q of group %d: %d rows returned", scanType, namespaceID, len(got))
	}
	return &got[0], nil
}

// AttachScanProfile attaches profile profileID to each of projectIDs it is
// not attached to yet, except projects that already have
// models.MaxScanProfilesPerProject profiles: those it returns, in the
// order given, attaching nothing to them. Each project's row is locked
// first (PostgreSQL; SQLite writers hold the database lock), so two
// attaches cannot together pass the limit. Call it inside a transaction.
func (s *Vulnerabilities) AttachScanProfile(ctx context.Context, profileID int64, projectIDs []int64) (full []int64, err error) {
	now := s.clock()
	for _, pid := range projectIDs {
		var locked []int64
		if err := s.forUpdate(s.conn(ctx).Table("projects").Where("id = ?", pid)).Pluck("id", &locked).Error; err != nil {
			return nil, fmt.Errorf("lock project %d: %w", pid, translate(err))
		}
		if len(locked) == 0 {
			return nil, fmt.Errorf("project %d: %w", pid, models.ErrNotFound)
		}
		var attached []int64
		if err := s.conn(ctx).Model(&models.ScanProfileProject{}).Where("project_id = ?", pid).
			Pluck("security_scan_profile_id", &attached).Error; err != nil {
			return nil, fmt.Errorf("scan profiles of project %d: %w", pid, translate(err))
		}
		switch {
		case slices.Contains(attached, profileID):
		case len(attached) >= models.MaxScanProfilesPerProject:
			full = append(full, pid)
		default:
			if err := s.conn(ctx).Create(&models.ScanProfileProject{SecurityScanProfileID: profileID, ProjectID: pid,
				CreatedAt: now}).Error; err != nil {
				return nil, fmt.Errorf("attach scan profile %d to project %d: %w", profileID, pid, translate(err))
			}
		}
	}
	return full, nil
}

// ScanProfileProjectIDs returns the projects scan profile profileID is
// attached to, by id.
func (s *Vulnerabilities) ScanProfileProjectIDs(ctx context.Context, profileID int64) ([]int64, error) {
	ids := []int64{}
	if err := s.conn(ctx).Model(&models.ScanProfileProject{}).Where("security_scan_profile_id = ?", profileID).
		Order("project_id").Pluck("project_id", &ids).Error; err != nil {
		return nil, fmt.Errorf("projects of scan profile %d: %w", profileID, translate(err))
	}
	return ids, nil
}
