package store

import (
	"context"
	"fmt"
)

// internal_ids usages (GitLab's internal_ids.usage, as text).
const (
	usageIssues        = "issues"
	usageMergeRequests = "merge_requests"
	usagePipelines     = "ci_pipelines"
)

// nextIID allocates the next per-project number for usage: 1, 2, 3, …
// One statement increments the project's counter (creating it at 1), and
// the row lock it takes serializes concurrent allocations in the project
// until the transaction ends. Call it inside the transaction that inserts
// the numbered row, so a rollback returns the number.
func (s *core) nextIID(ctx context.Context, projectID int64, usage string) (int64, error) {
	var next int64
	err := s.conn(ctx).Raw(`INSERT INTO internal_ids (project_id, usage, last_value) VALUES (?, ?, 1)
ON CONFLICT (project_id, usage) DO UPDATE SET last_value = internal_ids.last_value + 1
RETURNING last_value`, projectID, usage).Scan(&next).Error
	if err != nil {
		return 0, fmt.Errorf("allocate %s iid in project %d: %w", usage, projectID, translate(err))
	}
	if next == 0 {
		return 0, fmt.Errorf("allocate %s iid in project %d: no value returned", usage, projectID)
	}
	return next, nil
}
