package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateNote inserts n and fills its ID and timestamps.
//
// The noteable (issue or merge request n.NoteableID) must exist in project
// n.ProjectID, otherwise models.ErrNotFound. An empty DiscussionID starts a
// new discussion (a fresh 40-hex id, GitLab's format). A DiscussionID that
// already exists makes n a reply in that thread: it must belong to the same
// noteable (else models.ErrInvalidInput), and the thread becomes a
// discussion (Type DiscussionNote on every note of it, as GitLab does when
// someone replies to a stand-alone comment).
//
// A note of Type DiffNote starts a thread on a line of a merge request's
// diff and needs a Position; a reply in such a thread becomes a DiffNote
// with the thread's position.
//
// An empty body, an unknown noteable type, or a diff note without a
// position or on an issue is models.ErrInvalidInput.
func (s *Notes) CreateNote(ctx context.Context, n *models.Note) error {
	if err := prepareNote(n); err != nil {
		return fmt.Errorf("create note on %s %d: %w", n.NoteableType, n.NoteableID, err)
	}
	err := s.st.WithTx(ctx, func(tx *Store) error {
		if err := tx.Notes.checkNoteable(ctx, n); err != nil {
			return err
		}
		if n.DiscussionID == "" {
			id, err := newDiscussionID()
			if err != nil {
				return err
			}
			n.DiscussionID = id
		} else if err := tx.Notes.joinDiscussion(ctx, n); err != nil {
			return err
		}
		if err := tx.conn(ctx).Omit(clause.Associations).Create(n).Error; err != nil {
			return translate(err)
		}
		return nil
	})
	if err != nil {
		n.ID = 0
		return fmt.Errorf("create note on %s %d: %w", n.NoteableType, n.NoteableID, err)
	}
	s.changedViews(projectViews(n.ProjectID))
	return nil
}

func prepareNote(n *models.Note) error {
	if strings.TrimSpace(n.Body) == "" {
		return fmt.Errorf("empty body: %w", models.ErrInvalidInput)
	}
	switch n.NoteableType {
	case models.NoteableIssue:
	case models.NoteableMergeRequest:
	default:
		return fmt.Errorf("noteable type %q: %w", n.NoteableType, models.ErrInvalidInput)
	}
	if n.Type == models.NoteTypeDiff && (n.NoteableType != models.NoteableMergeRequest || n.Position == nil) {
		return fmt.Errorf("a diff note needs a merge request and a position: %w", models.ErrInvalidInput)
	}
	if n.Type != models.NoteTypeDiff {
		n.Position = nil
	}
	n.ID = 0
	return nil
}

// checkNoteable verifies that the noteable exists in the note's project.
func (s *Notes) checkNoteable(ctx context.Context, n *models.Note) error {
	table := "issues"
	if n.NoteableType == models.NoteableMergeRequest {
		table = "merge_requests"
	}
	var count int64
	err := s.conn(ctx).Table(table).Where("id = ? AND project_id = ?", n.NoteableID, n.ProjectID).Count(&count).Error
	if err != nil {
		return translate(err)
	}
	if count == 0 {
		return fmt.Errorf("%s %d in project %d: %w", n.NoteableType, n.NoteableID, n.ProjectID, models.ErrNotFound)
	}
	return nil
}

// joinDiscussion prepares n as a reply when its DiscussionID exists.
func (s *Notes) joinDiscussion(ctx context.Context, n *models.Note) error {
	var thread []models.Note
	err := s.conn(ctx).Select("id", "noteable_type", "noteable_id", "type", "position").
		Where("discussion_id = ?", n.DiscussionID).Order("id").Find(&thread).Error
	if err != nil {
		return translate(err)
	}
	if len(thread) == 0 {
		return nil // a new discussion with a caller-chosen id
	}
	for _, t := range thread {
		if t.NoteableType != n.NoteableType || t.NoteableID != n.NoteableID {
			return fmt.Errorf("discussion %s belongs to another %s: %w", n.DiscussionID, t.NoteableType, models.ErrInvalidInput)
		}
	}
	if thread[0].Type == models.NoteTypeDiff {
		n.Type, n.Position = models.NoteTypeDiff, thread[0].Position
		return nil
	}
	n.Type = models.NoteTypeDiscussion
	err = s.conn(ctx).Model(&models.Note{}).
		Where("discussion_id = ? AND type <> ?", n.DiscussionID, models.NoteTypeDiscussion).
		UpdateColumn("type", models.NoteTypeDiscussion).Error
	return translate(err)
}

func newDiscussionID() (string, error) {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("discussion id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// CountNotes counts the notes of a noteable, system notes included and
// internal ones only when includeInternal (GitLab's notes connection
// count).
func (s *Notes) CountNotes(ctx context.Context, typ models.NoteableType, noteableID int64, includeInternal bool) (int64, error) {
	var n int64
	q := s.conn(ctx).Model(&models.Note{}).Where("noteable_type = ? AND noteable_id = ?", typ, noteableID)
	if !includeInternal {
		q = q.Where("NOT internal")
	}
	if err := q.Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count notes of %s %d: %w", typ, noteableID, translate(err))
	}
	return n, nil
}

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
func (s *Notes) PageNotes(ctx context.Context, q models.NotePageQuery) (*models.NotePage, error) {
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
func (s *Notes) FindDiscussionStart(ctx context.Context, id string) (*models.Note, error) {
	var n models.Note
	err := s.conn(ctx).Where("discussion_id = ?", id).Order("created_at, id").Take(&n).Error
	if err != nil {
		return nil, fmt.Errorf("discussion %q: %w", id, translate(err))
	}
	return &n, nil
}

// LoadNote returns note id with its author, or models.ErrNotFound.
func (s *Notes) LoadNote(ctx context.Context, id int64) (*models.Note, error) {
	var n models.Note
	if err := s.conn(ctx).Preload("Author").Where("id = ?", id).Take(&n).Error; err != nil {
		return nil, fmt.Errorf("load note %d: %w", id, translate(err))
	}
	return &n, nil
}

// NoteableIIDs maps the ids of issues or merge requests (by typ) to their
// iids; unknown ids are left out.
func (s *Notes) NoteableIIDs(ctx context.Context, typ models.NoteableType, ids []int64) (map[int64]int64, error) {
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
