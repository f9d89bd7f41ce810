package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

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
func (s *Store) CreateNote(ctx context.Context, n *models.Note) error {
	if err := prepareNote(n); err != nil {
		return fmt.Errorf("create note on %s %d: %w", n.NoteableType, n.NoteableID, err)
	}
	err := s.WithTx(ctx, func(tx *Store) error {
		if err := tx.checkNoteable(ctx, n); err != nil {
			return err
		}
		if n.DiscussionID == "" {
			id, err := newDiscussionID()
			if err != nil {
				return err
			}
			n.DiscussionID = id
		} else if err := tx.joinDiscussion(ctx, n); err != nil {
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
func (s *Store) checkNoteable(ctx context.Context, n *models.Note) error {
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
func (s *Store) joinDiscussion(ctx context.Context, n *models.Note) error {
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
