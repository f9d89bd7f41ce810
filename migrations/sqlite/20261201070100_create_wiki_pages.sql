-- +goose Up
-- See the PostgreSQL migration of the same version.
CREATE TABLE wiki_pages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    slug       TEXT     NOT NULL CHECK (slug <> ''),
    title      TEXT     NOT NULL CHECK (title <> ''),
    format     TEXT     NOT NULL DEFAULT 'markdown' CHECK (format IN ('markdown', 'rdoc', 'asciidoc', 'org')),
    content    TEXT     NOT NULL DEFAULT '',
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_wiki_pages_on_project_id_and_slug ON wiki_pages (project_id, slug);

-- +goose Down
DROP TABLE wiki_pages;
