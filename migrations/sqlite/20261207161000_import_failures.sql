-- +goose Up
-- The records an archive carried that the import could not save; see the
-- PostgreSQL migration of the same version.
CREATE TABLE import_failures (
    id           INTEGER  PRIMARY KEY AUTOINCREMENT,
    project_id   INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    relation_key TEXT     NOT NULL,
    line         INTEGER  NOT NULL,
    message      TEXT     NOT NULL,
    created_at   DATETIME NOT NULL
);
CREATE INDEX index_import_failures_on_project_id ON import_failures (project_id, id);

-- +goose Down
DROP TABLE import_failures;
