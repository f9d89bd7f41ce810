-- +goose Up
-- Releases of a project (GitLab's releases and release_links); see the
-- PostgreSQL migration of the same version.
CREATE TABLE releases (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    tag         TEXT     NOT NULL CHECK (tag <> ''),
    name        TEXT     NOT NULL DEFAULT '',
    description TEXT     NOT NULL DEFAULT '',
    author_id   INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    released_at DATETIME NOT NULL,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_releases_on_project_id_and_tag ON releases (project_id, tag);
CREATE INDEX index_releases_on_project_id_and_released_at ON releases (project_id, released_at DESC, id DESC);

CREATE TABLE release_links (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    release_id INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name       TEXT    NOT NULL CHECK (name <> ''),
    url        TEXT    NOT NULL CHECK (url <> ''),
    link_type  TEXT    NOT NULL DEFAULT 'other' CHECK (link_type IN ('other', 'runbook', 'image', 'package')),
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX index_release_links_on_release_id ON release_links (release_id, id);

-- +goose Down
DROP TABLE release_links;
DROP TABLE releases;
