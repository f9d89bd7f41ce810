-- +goose Up
-- noteable_id is polymorphic (see noteable_type): no foreign key; the store
-- checks it on insert.
CREATE TABLE notes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    type          TEXT     NOT NULL DEFAULT '',
    noteable_type TEXT     NOT NULL CHECK (noteable_type IN ('Issue', 'MergeRequest')),
    noteable_id   INTEGER  NOT NULL,
    project_id    INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    author_id     INTEGER  NOT NULL REFERENCES users (id),
    body          TEXT     NOT NULL CHECK (body <> ''),
    internal      BOOLEAN  NOT NULL DEFAULT 0,
    system        BOOLEAN  NOT NULL DEFAULT 0,
    discussion_id TEXT     NOT NULL CHECK (discussion_id <> ''),
    created_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX index_notes_on_noteable ON notes (noteable_type, noteable_id, created_at, id);
CREATE INDEX index_notes_on_discussion_id ON notes (discussion_id);
CREATE INDEX index_notes_on_project_id ON notes (project_id);

-- +goose Down
DROP TABLE notes;
