package store

import (
	"context"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateRelease inserts r and its links in one transaction and fills their
// ids. An empty tag, a link without name or URL, or a tag already released
// in the project (models.ErrConflict) is refused; the tag is not checked
// against git (the caller does).
func (s *Releases) CreateRelease(ctx context.Context, r *models.Release) error {
	if strings.TrimSpace(r.Tag) == "" {
		return fmt.Errorf("create release: empty tag: %w", models.ErrInvalidInput)
	}
	for _, l := range r.Links {
		if strings.TrimSpace(l.Name) == "" || strings.TrimSpace(l.URL) == "" {
			return fmt.Errorf("create release %s: a link needs a name and a URL: %w", r.Tag, models.ErrInvalidInput)
		}
	}
	now := s.clock()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	if r.ReleasedAt.IsZero() {
		r.ReleasedAt = r.CreatedAt
	}
	r.ID = 0
	for k := range r.Links {
		r.Links[k].ID = 0
		if r.Links[k].LinkType == "" {
			r.Links[k].LinkType = "other"
		}
		if r.Links[k].CreatedAt.IsZero() {
			r.Links[k].CreatedAt = r.CreatedAt
		}
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		return translate(tx.conn(ctx).Create(r).Error)
	})
	if err != nil {
		r.ID = 0
		return fmt.Errorf("create release %s in project %d: %w", r.Tag, r.ProjectID, err)
	}
	return nil
}

// ListReleases returns a page of q.ProjectID's releases, most recently
// released first (ties: newest id first), each with at most q.MaxLinks
// links (in id order) and its LinkCount, and whether more follow.
func (s *Releases) ListReleases(ctx context.Context, q models.ReleaseQuery) ([]models.Release, bool, error) {
	db := s.conn(ctx).Where("project_id = ?", q.ProjectID)
	switch q.State {
	case models.ReleasesUpcoming:
		db = db.Where("released_at > ?", q.Now)
	case models.ReleasesAll:
	default:
		db = db.Where("released_at <= ?", q.Now)
	}
	out := []models.Release{}
	if err := db.Order("released_at DESC, id DESC").Offset(q.Offset).Limit(q.Limit + 1).Find(&out).Error; err != nil {
		return nil, false, fmt.Errorf("list releases of project %d: %w", q.ProjectID, translate(err))
	}
	more := len(out) > q.Limit
	if more {
		out = out[:q.Limit]
	}
	if len(out) == 0 {
		return out, false, nil
	}
	ids := make([]int64, len(out))
	for k := range out {
		ids[k] = out[k].ID
		out[k].Links = []models.ReleaseLink{}
	}
	var links []models.ReleaseLink
	if err := s.conn(ctx).Where("release_id IN ?", ids).Order("release_id, id").Find(&links).Error; err != nil {
		return nil, false, fmt.Errorf("list release links of project %d: %w", q.ProjectID, translate(err))
	}
	byID := map[int64]*models.Release{}
	for k := range out {
		byID[out[k].ID] = &out[k]
	}
	for _, l := range links {
		r := byID[l.ReleaseID]
		r.LinkCount++
		if len(r.Links) < q.MaxLinks {
			r.Links = append(r.Links, l)
		}
	}
	return out, more, nil
}

// ListWikiPages returns the pages of project projectID in slug order after
// afterSlug ("" from the start), at most limit+1 (the extra row tells the
// caller that more follow).
func (s *Releases) ListWikiPages(ctx context.Context, projectID int64, afterSlug string, limit int) ([]models.WikiPage, error) {
	out := []models.WikiPage{}
	q := s.conn(ctx).Where("project_id = ?", projectID)
	if afterSlug != "" {
		q = q.Where("slug > ?", afterSlug)
	}
	if err := q.Order("slug").Limit(limit + 1).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list wiki pages of project %d: %w", projectID, translate(err))
	}
	return out, nil
}

// CreateWikiPage inserts p (format markdown by default) and fills its ID
// and timestamps. A slug already used in the project is
// models.ErrConflict; an empty slug or title is models.ErrInvalidInput.
func (s *Releases) CreateWikiPage(ctx context.Context, p *models.WikiPage) error {
	if p.Format == "" {
		p.Format = "markdown"
	}
	p.ID = 0
	if err := s.conn(ctx).Create(p).Error; err != nil {
		return fmt.Errorf("create wiki page %q in project %d: %w", p.Slug, p.ProjectID, translate(err))
	}
	return nil
}
