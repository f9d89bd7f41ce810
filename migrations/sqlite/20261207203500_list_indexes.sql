-- +goose Up
-- The indexes the filtered lists need to read one page in order and stop
-- (the PostgreSQL twin says why): merge requests by project and id, and
-- issues by project, state and creation time. Merge requests by project,
-- state and id need no new index here: a SQLite index ends with the rowid
-- (merge_requests.id), so index_merge_requests_on_project_id_and_state
-- already reads them in id order.
CREATE INDEX index_merge_requests_on_project_id_and_id ON merge_requests (project_id, id);
CREATE INDEX index_issues_on_project_id_and_state_and_created_at_and_id ON issues (project_id, state, created_at, id);

-- +goose Down
DROP INDEX index_issues_on_project_id_and_state_and_created_at_and_id;
DROP INDEX index_merge_requests_on_project_id_and_id;
