-- +goose Up
CREATE TABLE labels (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT     NOT NULL CHECK (name <> ''),
    color       TEXT     NOT NULL DEFAULT '#6699cc',
    description TEXT     NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_labels_on_project_id_and_name ON labels (project_id, name);

-- +goose Down
DROP TABLE labels;
