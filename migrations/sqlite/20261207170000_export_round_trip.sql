-- +goose Up
-- A label's priority, a diff note's original position and line code,
-- release milestones and placeholders' source users; see the PostgreSQL
-- migration of the same version.
ALTER TABLE labels ADD COLUMN priority INTEGER CHECK (priority >= 0);
ALTER TABLE notes ADD COLUMN original_position TEXT;
ALTER TABLE notes ADD COLUMN line_code TEXT NOT NULL DEFAULT '';

CREATE TABLE release_milestones (
    release_id   INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    milestone_id INTEGER NOT NULL REFERENCES milestones (id) ON DELETE CASCADE,
    PRIMARY KEY (release_id, milestone_id)
);
CREATE INDEX index_release_milestones_on_milestone_id ON release_milestones (milestone_id);

CREATE TABLE import_source_users (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id             INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    placeholder_user_id    INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    reassign_to_user_id    INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    source_user_identifier TEXT     NOT NULL CHECK (source_user_identifier <> ''),
    source_username        TEXT     NOT NULL DEFAULT '',
    source_name            TEXT     NOT NULL DEFAULT '',
    access_level           INTEGER  CHECK (access_level > 0),
    status                 TEXT     NOT NULL DEFAULT 'pending_reassignment'
                                    CHECK (status IN ('pending_reassignment', 'completed')),
    created_at             DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at             DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_import_source_users_on_project_and_identifier ON import_source_users (project_id, source_user_identifier);
CREATE INDEX index_import_source_users_on_placeholder_user_id ON import_source_users (placeholder_user_id);

-- +goose Down
DROP TABLE import_source_users;
DROP TABLE release_milestones;
ALTER TABLE notes DROP COLUMN line_code;
ALTER TABLE notes DROP COLUMN original_position;
ALTER TABLE labels DROP COLUMN priority;
