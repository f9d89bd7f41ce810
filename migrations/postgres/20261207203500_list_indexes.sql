-- +goose NO TRANSACTION
-- +goose Up
-- The indexes the filtered lists need to read one page in order and stop,
-- whatever the project's size. list_merge_requests pages by id, newest
-- first, within the project (with a state or not); without these the
-- planner walked the primary key through every other project's newer
-- merge requests, or sorted all of the project's. list_work_items with a
-- state reads the project's issues of that state newest first: a rare
-- state no longer walks the project's other issues to fill a page. Built
-- CONCURRENTLY, outside a transaction, as the search indexes are.
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_project_id_and_id ON merge_requests (project_id, id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_project_id_and_state_and_id ON merge_requests (project_id, state, id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_project_id_and_state_and_created_at_and_id ON issues (project_id, state, created_at, id);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_project_id_and_state_and_created_at_and_id;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_project_id_and_state_and_id;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_project_id_and_id;
