-- +goose Up
-- No full-text index on SQLite: code search falls back to LIKE.
CREATE TABLE repository_files (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    ref        TEXT     NOT NULL,
    file_path  TEXT     NOT NULL,
    content    TEXT     NOT NULL DEFAULT '',
    size       INTEGER  NOT NULL DEFAULT 0,
    blob_id    TEXT     NOT NULL,
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (ref <> '' AND file_path <> '')
);
CREATE UNIQUE INDEX index_repository_files_on_project_ref_path ON repository_files (project_id, ref, file_path);

-- +goose Down
DROP TABLE repository_files;
