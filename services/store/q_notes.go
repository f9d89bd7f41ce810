package store

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// noteAfterSQL / noteBeforeSQL compare a note's (created_at, id) with the
// note whose id is the argument (passed three times). Comparing with the
// stored row, not a decoded timestamp, keeps the order exact on both
// databases.
const (
	noteAfterSQL = "(notes.created_at > (SELECT c.created_at FROM notes c WHERE c.id = ?) OR " +
		"(notes.created_at = (SELECT c.created_at FROM notes c WHERE c.id = ?) AND notes.id > ?))"
	noteBeforeSQL = "(notes.created_at < (SELECT c.created_at FROM notes c WHERE c.id = ?) OR " +
		"(notes.created_at = (SELECT c.created_at FROM notes c WHERE c.id = ?) AND notes.id < ?))"
)

// PageNotes returns one page of a noteable's notes, oldest first, with
// their authors (see models.NotePageQuery). A cursor (AfterID, BeforeID)
// that is not a note of the list is models.ErrInvalidInput. HasNext and
// HasPrevious report whether notes of the list exist after the page's last
// note and before its first, whatever the cursors.
func (s *Store) PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error) {
	base := func() *gorm.DB {
		db := s.conn(ctx).Model(&models.Note{}).
			Where("notes.noteable_type = ? AND notes.noteable_id = ?", q.NoteableType, q.NoteableID)
		if !q.IncludeInternal {
			db = db.Where("NOT notes.internal")
		}
		return db
	}
	for name, id := range map[string]int64{"after": q.AfterID, "before": q.BeforeID} {
		if id <= 0 {
			continue
		}
		var n int64
		if err := base().Where("notes.id = ?", id).Count(&n).Error; err != nil {
			return nil, fmt.Errorf("page notes: %w", translate(err))
		}
		if n == 0 {
			return nil, &models.InputError{Msg: name + ": the cursor does not point into this list of notes"}
		}
	}
	page := base().Preload("Author")
	if q.AfterID > 0 {
		page = page.Where(noteAfterSQL, q.AfterID, q.AfterID, q.AfterID)
	}
	if q.BeforeID > 0 {
		page = page.Where(noteBeforeSQL, q.BeforeID, q.BeforeID, q.BeforeID)
	}
	if q.FromEnd {
		page = page.Order("notes.created_at DESC, notes.id DESC")
	} else {
		page = page.Order("notes.created_at, notes.id")
	}
	out := &models.NotePage{Notes: []models.Note{}}
	if err := page.Limit(q.Limit).Find(&out.Notes).Error; err != nil {
		return nil, fmt.Errorf("page notes of %s %d: %w", q.NoteableType, q.NoteableID, translate(err))
	}
	if q.FromEnd {
		slices.Reverse(out.Notes)
	}
	if len(out.Notes) == 0 {
		out.HasPrevious, out.HasNext = q.AfterID > 0, q.BeforeID > 0
		return out, nil
	}
	exists := func(cond string, id int64) (bool, error) {
		var n int64
		err := base().Where(cond, id, id, id).Limit(1).Count(&n).Error
		return n > 0, translate(err)
	}
	var err error
	if out.HasPrevious, err = exists(noteBeforeSQL, out.Notes[0].ID); err != nil {
		return nil, fmt.Errorf("page notes: %w", err)
	}
	if out.HasNext, err = exists(noteAfterSQL, out.Notes[len(out.Notes)-1].ID); err != nil {
		return nil, fmt.Errorf("page notes: %w", err)
	}
	return out, nil
}

// FindDiscussionStart returns the first note of discussion id, or
// models.ErrNotFound.
func (s *Store) FindDiscussionStart(ctx context.Context, id string) (*models.Note, error) {
	var n models.Note
	err := s.conn(ctx).Where("discussion_id = ?", id).Order("created_at, id").Take(&n).Error
	if err != nil {
		return nil, fmt.Errorf("discussion %q: %w", id, translate(err))
	}
	return &n, nil
}

// LoadNote returns note id with its author, or models.ErrNotFound.
func (s *Store) LoadNote(ctx context.Context, id int64) (*models.Note, error) {
	var n models.Note
	if err := s.conn(ctx).Preload("Author").Where("id = ?", id).Take(&n).Error; err != nil {
		return nil, fmt.Errorf("load note %d: %w", id, translate(err))
	}
	return &n, nil
}

// NoteableIIDs maps the ids of issues or merge requests (by typ) to their
// iids; unknown ids are left out.
func (s *Store) NoteableIIDs(ctx context.Context, typ models.NoteableType, ids []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	table := "issues"
	if typ == models.NoteableMergeRequest {
		table = "merge_requests"
	}
	var rows []struct {
		ID  int64
		IID int64 `gorm:"column:iid"`
	}
	err := s.conn(ctx).Table(table).Select("id, iid").Where("id IN ?", ids).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("iids of %s: %w", table, translate(err))
	}
	for _, r := range rows {
		out[r.ID] = r.IID
	}
	return out, nil
}
