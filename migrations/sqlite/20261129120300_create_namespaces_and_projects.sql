-- +goose Up
CREATE TABLE namespaces (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT     NOT NULL,
    path        TEXT     NOT NULL,
    full_path   TEXT     NOT NULL,
    description TEXT     NOT NULL DEFAULT '',
    parent_id   INTEGER  REFERENCES namespaces (id) ON DELETE CASCADE,
    visibility  TEXT     NOT NULL DEFAULT 'private'
                CHECK (visibility IN ('private', 'internal', 'public')),
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (path <> '' AND full_path <> '')
);
CREATE UNIQUE INDEX index_namespaces_on_lower_full_path ON namespaces (lower(full_path));
CREATE INDEX index_namespaces_on_parent_id ON namespaces (parent_id);

CREATE TABLE projects (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    name                TEXT     NOT NULL,
    path                TEXT     NOT NULL,
    namespace_id        INTEGER  NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
    path_with_namespace TEXT     NOT NULL,
    description         TEXT     NOT NULL DEFAULT '',
    visibility          TEXT     NOT NULL DEFAULT 'private'
                        CHECK (visibility IN ('private', 'internal', 'public')),
    default_branch      TEXT     NOT NULL DEFAULT 'main',
    created_at          DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at          DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (path <> '' AND path_with_namespace <> '')
);
CREATE UNIQUE INDEX index_projects_on_lower_path_with_namespace ON projects (lower(path_with_namespace));
CREATE INDEX index_projects_on_namespace_id ON projects (namespace_id);
CREATE INDEX index_projects_on_visibility ON projects (visibility);

CREATE TABLE project_members (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id   INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id      INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    access_level INTEGER  NOT NULL CHECK (access_level IN (10, 20, 30, 40, 50)),
    created_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_project_members_on_project_id_and_user_id ON project_members (project_id, user_id);
CREATE INDEX index_project_members_on_user_id ON project_members (user_id);

CREATE TABLE internal_ids (
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    usage      TEXT    NOT NULL,
    last_value INTEGER NOT NULL,
    PRIMARY KEY (project_id, usage)
);

-- +goose Down
DROP TABLE internal_ids;
DROP TABLE project_members;
DROP TABLE projects;
DROP TABLE namespaces;
