-- +goose Up
-- A fork remembers the project it was forked from (GitLab's
-- forked_from_project). Deleting the source keeps the fork, unlinked.
ALTER TABLE projects ADD COLUMN forked_from_project_id bigint REFERENCES projects (id) ON DELETE SET NULL;
CREATE INDEX index_projects_on_forked_from_project_id ON projects (forked_from_project_id);

-- +goose Down
DROP INDEX index_projects_on_forked_from_project_id;
ALTER TABLE projects DROP COLUMN forked_from_project_id;
