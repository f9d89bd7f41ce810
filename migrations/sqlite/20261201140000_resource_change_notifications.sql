-- +goose Up
-- Resource changes on the embedded store (issue #14): the changes the
-- PostgreSQL migration of this version announces with NOTIFY on
-- glmcp_resources are appended here instead, with the same keys, and the
-- serving process reads the rows it has not seen yet about once a second
-- (and deletes them). Triggers fire for every writer of the file: this
-- server, the CLI in another process, the sqlite3 shell.
CREATE TABLE resource_changes (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    resource TEXT NOT NULL
);

-- +goose StatementBegin
CREATE TRIGGER projects_resource_changed AFTER UPDATE ON projects
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('p:' || NEW.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER projects_resource_deleted AFTER DELETE ON projects
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('p:' || OLD.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER issues_resource_changed AFTER UPDATE ON issues
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('i:' || NEW.project_id || ':' || NEW.iid);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER issues_resource_deleted AFTER DELETE ON issues
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('i:' || OLD.project_id || ':' || OLD.iid);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER merge_requests_resource_changed AFTER UPDATE ON merge_requests
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('m:' || NEW.project_id || ':' || NEW.iid);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER merge_requests_resource_deleted AFTER DELETE ON merge_requests
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('m:' || OLD.project_id || ':' || OLD.iid);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ci_jobs_resource_changed AFTER UPDATE ON ci_jobs
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('j:' || NEW.project_id || ':' || NEW.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ci_jobs_resource_deleted AFTER DELETE ON ci_jobs
BEGIN
    INSERT INTO resource_changes (resource) VALUES ('j:' || OLD.project_id || ':' || OLD.id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER ci_jobs_resource_deleted;
DROP TRIGGER ci_jobs_resource_changed;
DROP TRIGGER merge_requests_resource_deleted;
DROP TRIGGER merge_requests_resource_changed;
DROP TRIGGER issues_resource_deleted;
DROP TRIGGER issues_resource_changed;
DROP TRIGGER projects_resource_deleted;
DROP TRIGGER projects_resource_changed;
DROP TABLE resource_changes;
