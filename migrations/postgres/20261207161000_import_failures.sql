-- +goose Up
-- The records a project export archive carried that the import could not
-- save (GitLab's import_failures): the relation, the line of its ndjson
-- file, and what was wrong in words. The rest of the project came in.
CREATE TABLE import_failures (
    id           bigserial   PRIMARY KEY,
    project_id   bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    relation_key text        NOT NULL,
    line         integer     NOT NULL,
    message      text        NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX index_import_failures_on_project_id ON import_failures (project_id, id);

-- +goose Down
DROP TABLE import_failures;
