-- +goose Up
-- GitLab allows one open merge request per source project, source branch
-- and target branch; an imported project's history keeps what GitLab had,
-- where merge requests from several forks (each a source project of its
-- own) share a branch pair. Imported rows are marked, and the rule
-- applies to the merge requests made here.
ALTER TABLE merge_requests ADD COLUMN imported BOOLEAN NOT NULL DEFAULT 0;
DROP INDEX index_merge_requests_one_open_per_branch_pair;
CREATE UNIQUE INDEX index_merge_requests_one_open_per_branch_pair
    ON merge_requests (project_id, source_branch, target_branch) WHERE state = 'opened' AND imported = false;

-- +goose Down
DROP INDEX index_merge_requests_one_open_per_branch_pair;
CREATE UNIQUE INDEX index_merge_requests_one_open_per_branch_pair
    ON merge_requests (project_id, source_branch, target_branch) WHERE state = 'opened';
ALTER TABLE merge_requests DROP COLUMN imported;
