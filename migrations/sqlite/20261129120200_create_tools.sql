-- +goose Up
CREATE TABLE tools (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT     NOT NULL CHECK (name <> ''),
    title         TEXT     NOT NULL DEFAULT '',
    description   TEXT     NOT NULL DEFAULT '',
    description_customized BOOLEAN NOT NULL DEFAULT 0,
    input_schema  TEXT     NOT NULL,
    output_schema TEXT,
    annotations   TEXT     NOT NULL DEFAULT '{}',
    toolset       TEXT     NOT NULL,
    edition       TEXT     NOT NULL DEFAULT 'ce' CHECK (edition IN ('ce', 'ee')),
    enabled       BOOLEAN  NOT NULL DEFAULT 1,
    aliases       TEXT     NOT NULL DEFAULT '[]',
    created_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_tools_on_name ON tools (name);

-- No pg_notify here: on SQLite change notification stays in-process.
CREATE TABLE catalog_versions (
    id         INTEGER  PRIMARY KEY CHECK (id = 1),
    version    INTEGER  NOT NULL DEFAULT 0,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO catalog_versions (id, version) VALUES (1, 0);

-- +goose Down
DROP TABLE catalog_versions;
DROP TABLE tools;
