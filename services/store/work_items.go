package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// maxHierarchyDepth bounds a work item's chain of ancestors (GitLab caps
// epic nesting at 7 levels; no type nests deeper).
const maxHierarchyDepth = 9

// UpdateWorkItem applies u to work item id in one transaction that holds
// the item's row lock, and returns the item as stored, with its author and
// assignees. The title must stay non-empty, the start date not after the
// due date, the milestone and labels must belong to the item's project,
// the parent must obey setParent. Any of these broken is
// models.ErrInvalidInput, and nothing is written; a missing item is
// models.ErrNotFound.
func (s *Issues) UpdateWorkItem(ctx context.Context, id int64, u models.WorkItemUpdate) (*models.Issue, error) {
	var out *models.Issue
	err := s.st.WithTx(ctx, func(tx *Store) error {
		i, err := tx.Issues.lockIssue(ctx, id)
		if err != nil {
			return err
		}
		if err := tx.Issues.applyUpdate(ctx, i, u); err != nil {
			return err
		}
		i.UpdatedAt = tx.clock()
		err = tx.conn(ctx).Model(i).Select("title", "description", "confidential", "state", "closed_at",
			"milestone", "milestone_id", "start_date", "due_date", "labels", "updated_at").Updates(i).Error
		if err != nil {
			return translate(err)
		}
		if u.AssigneeIDs != nil {
			if err := tx.conn(ctx).Exec("DELETE FROM issue_assignees WHERE issue_id = ?", i.ID).Error; err != nil {
				return translate(err)
			}
			if err := tx.insertUserLinks(ctx, "issue_assignees", "issue_id", i.ID, *u.AssigneeIDs); err != nil {
				return err
			}
		}
		if u.SetParent {
			if err := tx.Issues.setParent(ctx, i, u.ParentID); err != nil {
				return err
			}
		}
		out, err = tx.Issues.LoadIssue(ctx, i.ProjectID, i.IID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("update work item %d: %w", id, err)
	}
	s.changedViews(projectViews(out.ProjectID))
	return out, nil
}

func (s *Issues) applyUpdate(ctx context.Context, i *models.Issue, u models.WorkItemUpdate) error {
	if u.Title != nil {
		if strings.TrimSpace(*u.Title) == "" {
			return fmt.Errorf("empty title: %w", models.ErrInvalidInput)
		}
		i.Title = *u.Title
	}
	if u.Description != nil {
		i.Description = *u.Description
	}
	if u.Confidential != nil {
		i.Confidential = *u.Confidential
	}
	if u.State != nil && *u.State != i.State {
		switch *u.State {
		case models.IssueClosed:
			now := s.clock()
			i.ClosedAt = &now
		case models.IssueOpened:
			i.ClosedAt = nil
		default:
			return fmt.Errorf("state %q: %w", *u.State, models.ErrInvalidInput)
		}
		i.State = *u.State
	}
	if u.SetMilestone {
		i.MilestoneID, i.Milestone = u.MilestoneID, ""
		if err := s.milestoneFor(ctx, i); err != nil {
			return err
		}
	}
	if u.SetStartDate {
		i.StartDate = u.StartDate
	}
	if u.SetDueDate {
		i.DueDate = u.DueDate
	}
	if err := datesOrdered(i.StartDate, i.DueDate); err != nil {
		return err
	}
	if len(u.AddLabels) > 0 || len(u.RemoveLabels) > 0 {
		labels, err := s.changeLabels(ctx, i, u.AddLabels, u.RemoveLabels)
		if err != nil {
			return err
		}
		i.Labels = labels
	}
	return nil
}

// changeLabels returns i's labels with add added (each must be a label of
// i's project) and remove removed; a label both added and removed ends up
// removed, as GitLab's label widget does.
func (s *Issues) changeLabels(ctx context.Context, i *models.Issue, add, remove []string) (models.StringList, error) {
	if len(add) > 0 {
		found, err := s.FindLabelsByName(ctx, i.ProjectID, add)
		if err != nil {
			return nil, err
		}
		for _, name := range add {
			if !slices.ContainsFunc(found, func(l models.Label) bool { return l.Name == name }) {
				return nil, fmt.Errorf("label %q not in project %d: %w", name, i.ProjectID, models.ErrInvalidInput)
			}
		}
	}
	out := models.StringList{}
	for _, l := range append(slices.Clone([]string(i.Labels)), add...) {
		if !slices.Contains(remove, l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

func datesOrdered(start, due *models.Date) error {
	if start != nil && due != nil && start.After(due.Time) {
		return fmt.Errorf("start date %s is after due date %s: %w", start, due, models.ErrInvalidInput)
	}
	return nil
}

// lockIssue reads issue id for update: on PostgreSQL the row stays locked
// until the transaction ends (SQLite transactions already hold the write
// lock).
func (s *Issues) lockIssue(ctx context.Context, id int64) (*models.Issue, error) {
	var i models.Issue
	q := s.conn(ctx)
	if s.dialect == migrations.DialectPostgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	if err := q.Where("id = ?", id).Take(&i).Error; err != nil {
		return nil, fmt.Errorf("lock work item %d: %w", id, translate(err))
	}
	return &i, nil
}

// setParent makes parentID the parent of child (nil: no parent). The parent
// must be a work item of child's project whose type may hold child's type
// (models.CanParent), and must not be child or one of its descendants.
// Hierarchy changes in a project are serialized (the project row is locked
// on PostgreSQL), so two concurrent changes cannot build a cycle.
func (s *Issues) setParent(ctx context.Context, child *models.Issue, parentID *int64) error {
	if s.dialect == migrations.DialectPostgres {
		if err := s.conn(ctx).Exec("SELECT id FROM projects WHERE id = ? FOR UPDATE", child.ProjectID).Error; err != nil {
			return translate(err)
		}
	}
	if err := s.conn(ctx).Exec("DELETE FROM work_item_parent_links WHERE work_item_id = ?", child.ID).Error; err != nil {
		return translate(err)
	}
	if parentID == nil {
		return nil
	}
	var parent models.Issue
	if err := s.conn(ctx).Where("id = ?", *parentID).Take(&parent).Error; err != nil || parent.ProjectID != child.ProjectID {
		return fmt.Errorf("parent work item %d not found in project %d: %w", *parentID, child.ProjectID, models.ErrInvalidInput)
	}
	if !models.CanParent(parent.WorkItemTypeID, child.WorkItemTypeID) {
		return fmt.Errorf("a work item of type %d cannot be the parent of one of type %d: %w",
			parent.WorkItemTypeID, child.WorkItemTypeID, models.ErrInvalidInput)
	}
	ancestor := parent.ID
	for depth := 0; ; depth++ {
		if ancestor == child.ID {
			return fmt.Errorf("work item %d cannot be its own ancestor: %w", child.ID, models.ErrInvalidInput)
		}
		if depth >= maxHierarchyDepth {
			return fmt.Errorf("hierarchy deeper than %d levels: %w", maxHierarchyDepth, models.ErrInvalidInput)
		}
		var up []int64
		if err := s.conn(ctx).Raw("SELECT work_item_parent_id FROM work_item_parent_links WHERE work_item_id = ?", ancestor).
			Scan(&up).Error; err != nil {
			return translate(err)
		}
		if len(up) == 0 {
			break
		}
		ancestor = up[0]
	}
	now := s.clock()
	err := s.conn(ctx).Exec(`INSERT INTO work_item_parent_links (work_item_id, work_item_parent_id, created_at, updated_at)
VALUES (?, ?, ?, ?)`, child.ID, parent.ID, now, now).Error
	return translate(err)
}

// LinkWorkItems links source to each of targets with type t in one
// transaction (blocked_by is stored as a blocks link from the target).
// Targets are deduplicated; a target that is source, or a pair already
// linked either way, is models.ErrConflict and nothing is written. The
// rows of the items are locked in id order, so concurrent links of the
// same pair cannot both pass the check.
func (s *Issues) LinkWorkItems(ctx context.Context, source int64, targets []int64, t models.LinkType) error {
	switch t {
	case models.LinkRelatesTo, models.LinkBlocks, models.LinkBlockedBy:
	default:
		return fmt.Errorf("link work items: link type %q: %w", t, models.ErrInvalidInput)
	}
	ids := slices.Compact(slices.Sorted(slices.Values(targets)))
	err := s.st.WithTx(ctx, func(tx *Store) error {
		all := slices.Sorted(slices.Values(append(slices.Clone(ids), source)))
		for _, id := range slices.Compact(all) {
			if _, err := tx.Issues.lockIssue(ctx, id); err != nil {
				return err
			}
		}
		now := tx.clock()
		for _, target := range ids {
			if target == source {
				return fmt.Errorf("a work item cannot be linked to itself: %w", models.ErrConflict)
			}
			var n int64
			if err := tx.conn(ctx).Model(&models.WorkItemLink{}).
				Where("(source_id = ? AND target_id = ?) OR (source_id = ? AND target_id = ?)", source, target, target, source).
				Count(&n).Error; err != nil {
				return translate(err)
			}
			if n > 0 {
				return fmt.Errorf("work items %d and %d are already linked: %w", source, target, models.ErrConflict)
			}
			l := models.WorkItemLink{SourceID: source, TargetID: target, LinkType: t, CreatedAt: now, UpdatedAt: now}
			if t == models.LinkBlockedBy {
				l.SourceID, l.TargetID, l.LinkType = target, source, models.LinkBlocks
			}
			if err := tx.conn(ctx).Create(&l).Error; err != nil {
				return translate(err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("link work item %d: %w", source, err)
	}
	return nil
}

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
func (s *Issues) ListWorkItems(ctx context.Context, q models.WorkItemQuery) (*models.WorkItemPage, error) {
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
		db = lockdownTitleOrTrusted(db, q.Lockdown, q.Search, "issues")
	}
	if q.AuthorUsername != "" {
		db = db.Where("issues.author_id IN (SELECT au.id FROM users au WHERE lower(au.username) = lower(?))", q.AuthorUsername)
	}
	for _, name := range q.AssigneeUsernames {
		// The user is looked up once (a scalar subquery: lower(username) is
		// unique), not joined per issue: joined, PostgreSQL's planner
		// estimated the assignee's issues from the average user and, for
		// a 100,000-issue project, probed all 5,000 of one assignee's
		// issues and sorted them (15,559 buffers) instead of walking the
		// newest issues and stopping at the page (664).
		db = db.Where("EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = issues.id "+
			"AND fa.user_id = (SELECT fu.id FROM users fu WHERE lower(fu.username) = lower(?)))", name)
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
func (s *Issues) ListWorkItemTypes(ctx context.Context, edition models.Edition) ([]models.WorkItemType, error) {
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
func (s *Issues) FindIssueByID(ctx context.Context, id int64) (*models.Issue, error) {
	var i models.Issue
	if err := s.conn(ctx).Where("id = ?", id).Take(&i).Error; err != nil {
		return nil, fmt.Errorf("find issue %d: %w", id, translate(err))
	}
	return &i, nil
}

// WorkItemParent returns the parent of work item id, or nil when it has
// none. It does not check permissions.
func (s *Issues) WorkItemParent(ctx context.Context, id int64) (*models.Issue, error) {
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
func (s *Issues) WorkItemHasChildren(ctx context.Context, id int64) (bool, error) {
	var n int64
	if err := s.conn(ctx).Table("work_item_parent_links").Where("work_item_parent_id = ?", id).Limit(1).Count(&n).Error; err != nil {
		return false, fmt.Errorf("children of work item %d: %w", id, translate(err))
	}
	return n > 0, nil
}
