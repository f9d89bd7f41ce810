package store

import (
	"context"
	"fmt"
)

// insertUserLinks inserts (ownerID, userID) rows into a join table such as
// issue_assignees. Duplicate ids are written once; an unknown user is
// models.ErrInvalidInput.
func (s *core) insertUserLinks(ctx context.Context, table, ownerColumn string, ownerID int64, userIDs []int64) error {
	seen := map[int64]bool{}
	for _, uid := range userIDs {
		if seen[uid] {
			continue
		}
		seen[uid] = true
		q := "INSERT INTO " + table + " (" + ownerColumn + ", user_id) VALUES (?, ?)"
		if err := s.conn(ctx).Exec(q, ownerID, uid).Error; err != nil {
			return fmt.Errorf("link user %d: %w", uid, translate(err))
		}
	}
	return nil
}
