-- +goose Up
-- list_work_items sorted by title (TITLE_ASC / TITLE_DESC) pages by
-- (title, id): without this index each page sorts the whole project.
CREATE INDEX index_issues_on_project_id_and_title_and_id ON issues (project_id, title, id);

-- +goose Down
DROP INDEX index_issues_on_project_id_and_title_and_id;
