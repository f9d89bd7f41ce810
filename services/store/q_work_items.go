package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// workItemSorts maps a sort to its column and direction; every sort breaks
// ties by id in the same direction, so (column, id) is a keyset.
var workItemSorts = map[models.WorkItemSort]struct {
	col  string
	desc bool
}{
	models.SortCreatedDesc: {"created_at", true},
	models.SortCreatedAsc:  {"created_at", false},
	models.SortUpdatedDesc: {"updated_at", true},
	models.SortUpdatedAsc:  {"updated_at", false},
	models.SortTitleAsc:    {"title", false},
	models.SortTitleDesc:   {"title", true},
}

// ListWorkItems returns one page of the work items q.Viewer may read (see
// models.WorkItemQuery), at most q.Limit, resuming after (q.AfterKey,
// q.AfterID). It reads Limit+1 rows and nothing else, so memory is bounded
// by the page whatever the table holds. An unknown sort or a malformed
// resume key is models.ErrInvalidInput.
func (s *Store) ListWorkItems(ctx context.Context, q models.WorkItemQuery) (*models.WorkItemPage, error) {
	if q.Sort == "" {
		q.Sort = models.SortCreatedDesc
	}
	sort, ok := workItemSorts[q.Sort]
	if !ok {
		return nil, fmt.Errorf("list work items: sort %q: %w", q.Sort, models.ErrInvalidInput)
	}
	db := withProjects(s.conn(ctx).Model(&models.Issue{}), "issues.project_id", q.Viewer, q.ProjectID, q.GroupPath)
	vis, args := visibleIssuesSQL(q.Viewer, "issues")
	db = filterWorkItems(db.Where(vis, args...), q, s.clock())
	col, op, dir := "issues."+sort.col, ">", "ASC"
	if sort.desc {
		op, dir = "<", "DESC"
	}
	if q.AfterID > 0 {
		key, err := sortKeyValue(sort.col, q.AfterKey)
		if err != nil {
			return nil, fmt.Errorf("list work items: %w", err)
		}
		db = db.Where("("+col+" "+op+" ?) OR ("+col+" = ? AND issues.id "+op+" ?)", key, key, q.AfterID)
	}
	rows := []models.Issue{}
	err := db.Order(col + " " + dir).Order("issues.id " + dir).Limit(q.Limit + 1).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list work items: %w", translate(err))
	}
	page := &models.WorkItemPage{Items: rows}
	if len(rows) > q.Limit {
		page.Items, page.HasNext = rows[:q.Limit], true
	}
	if n := len(page.Items); n > 0 {
		last := page.Items[n-1]
		page.EndID = last.ID
		switch sort.col {
		case "created_at":
			page.EndKey = last.CreatedAt.UTC().Format(time.RFC3339Nano)
		case "updated_at":
			page.EndKey = last.UpdatedAt.UTC().Format(time.RFC3339Nano)
		default:
			page.EndKey = last.Title
		}
	}
	return page, nil
}

func sortKeyValue(col, key string) (any, error) {
	if col == "title" {
		return key, nil
	}
	t, err := time.Parse(time.RFC3339Nano, key)
	if err != nil {
		return nil, fmt.Errorf("resume key %q: %w", key, models.ErrInvalidInput)
	}
	return t.UTC(), nil
}

func filterWorkItems(db *gorm.DB, q models.WorkItemQuery, now time.Time) *gorm.DB {
	if q.State != "" {
		db = db.Where("issues.state = ?", q.State)
	}
	if q.Search != "" {
		db = matchAny(db, q.Search, "issues.title", "issues.description")
	}
	if q.AuthorUsername != "" {
		db = db.Where("issues.author_id IN (SELECT au.id FROM users au WHERE lower(au.username) = lower(?))", q.AuthorUsername)
	}
	for _, name := range q.AssigneeUsernames {
		db = db.Where("EXISTS (SELECT 1 FROM issue_assignees fa JOIN users fu ON fu.id = fa.user_id "+
			"WHERE fa.issue_id = issues.id AND lower(fu.username) = lower(?))", name)
	}
	for _, name := range q.LabelNames {
		// labels is a JSON array of names: match the element as encoded.
		elem, _ := json.Marshal(name)
		db = db.Where(`issues.labels LIKE ? ESCAPE '\'`, "%"+likeEscape(string(elem))+"%")
	}
	if len(q.MilestoneTitles) > 0 {
		db = db.Where("issues.milestone IN ?", q.MilestoneTitles)
	}
	today := now.Format(models.DateLayout)
	switch q.MilestoneWildcard {
	case "NONE":
		db = db.Where("issues.milestone_id IS NULL")
	case "ANY":
		db = db.Where("issues.milestone_id IS NOT NULL")
	case "STARTED":
		db = db.Where("issues.milestone_id IN (SELECT wm.id FROM milestones wm WHERE wm.state = 'active' "+
			"AND wm.start_date <= ? AND (wm.due_date IS NULL OR wm.due_date >= ?))", today, today)
	case "UPCOMING":
		db = db.Where("issues.milestone_id IN (SELECT wm.id FROM milestones wm WHERE wm.state = 'active' "+
			"AND wm.start_date > ?)", today)
	}
	if len(q.Types) > 0 {
		db = db.Where("issues.work_item_type_id IN ?", q.Types)
	}
	for _, c := range []struct {
		cond string
		t    *time.Time
	}{
		{"issues.created_at >= ?", q.CreatedAfter}, {"issues.created_at <= ?", q.CreatedBefore},
		{"issues.updated_at >= ?", q.UpdatedAfter}, {"issues.updated_at <= ?", q.UpdatedBefore},
	} {
		if c.t != nil {
			db = db.Where(c.cond, c.t.UTC())
		}
	}
	if q.DueAfter != nil {
		db = db.Where("issues.due_date >= ?", *q.DueAfter)
	}
	if q.DueBefore != nil {
		db = db.Where("issues.due_date <= ?", *q.DueBefore)
	}
	return db
}

// ListWorkItemTypes returns the work item types of an edition (EE: all;
// CE: the CE ones), by id.
func (s *Store) ListWorkItemTypes(ctx context.Context, edition models.Edition) ([]models.WorkItemType, error) {
	out := []models.WorkItemType{}
	q := s.conn(ctx).Order("id")
	if edition != models.EditionEE {
		q = q.Where("edition = ?", models.EditionCE)
	}
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list work item types: %w", translate(err))
	}
	return out, nil
}

// FindIssueByID returns issue id (no people loaded), or models.ErrNotFound.
// It does not check permissions.
func (s *Store) FindIssueByID(ctx context.Context, id int64) (*models.Issue, error) {
	var i models.Issue
	if err := s.conn(ctx).Where("id = ?", id).Take(&i).Error; err != nil {
		return nil, fmt.Errorf("find issue %d: %w", id, translate(err))
	}
	return &i, nil
}

// WorkItemParent returns the parent of work item id, or nil when it has
// none. It does not check permissions.
func (s *Store) WorkItemParent(ctx context.Context, id int64) (*models.Issue, error) {
	var out []models.Issue
	err := s.conn(ctx).Where("id IN (SELECT work_item_parent_id FROM work_item_parent_links WHERE work_item_id = ?)", id).
		Limit(1).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("parent of work item %d: %w", id, translate(err))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return &out[0], nil
}

// WorkItemHasChildren reports whether work item id has children.
func (s *Store) WorkItemHasChildren(ctx context.Context, id int64) (bool, error) {
	var n int64
	if err := s.conn(ctx).Table("work_item_parent_links").Where("work_item_parent_id = ?", id).Limit(1).Count(&n).Error; err != nil {
		return false, fmt.Errorf("children of work item %d: %w", id, translate(err))
	}
	return n > 0, nil
}

// ListWikiPages returns the pages of project projectID in slug order after
// afterSlug ("" from the start), at most limit+1 (the extra row tells the
// caller that more follow).
func (s *Store) ListWikiPages(ctx context.Context, projectID int64, afterSlug string, limit int) ([]models.WikiPage, error) {
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
func (s *Store) CreateWikiPage(ctx context.Context, p *models.WikiPage) error {
	if p.Format == "" {
		p.Format = "markdown"
	}
	p.ID = 0
	if err := s.conn(ctx).Create(p).Error; err != nil {
		return fmt.Errorf("create wiki page %q in project %d: %w", p.Slug, p.ProjectID, translate(err))
	}
	return nil
}
