-- +goose Up
-- GitLab allows one open merge request per source and target branch of a
-- project ("Another open merge request already exists for this source
-- branch: !N"). The tool checked first and inserted after, so two agents at
-- once could both pass the check: the database now enforces the rule.
-- Duplicates left by that race are closed first, keeping the oldest open.
UPDATE merge_requests AS m
SET state = 'closed', closed_at = COALESCE(m.closed_at, now()), updated_at = now()
WHERE m.state = 'opened'
  AND EXISTS (
    SELECT 1 FROM merge_requests o
    WHERE o.project_id = m.project_id AND o.source_branch = m.source_branch
      AND o.target_branch = m.target_branch AND o.state = 'opened' AND o.iid < m.iid
  );
CREATE UNIQUE INDEX index_merge_requests_one_open_per_branch_pair
    ON merge_requests (project_id, source_branch, target_branch) WHERE state = 'opened';

-- +goose Down
DROP INDEX index_merge_requests_one_open_per_branch_pair;
