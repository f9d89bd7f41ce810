-- +goose Up
-- Allow / Ask / Deny rules for write tools; see the PostgreSQL migration of
-- the same version.
CREATE TABLE tool_rules (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
    project_id   INTEGER REFERENCES projects (id) ON DELETE CASCADE,
    tool         TEXT     NOT NULL DEFAULT '',
    rule         TEXT     NOT NULL CHECK (rule IN ('allow', 'ask', 'deny')),
    created_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK ((namespace_id IS NULL) <> (project_id IS NULL))
);
CREATE UNIQUE INDEX index_tool_rules_on_namespace_and_tool ON tool_rules (namespace_id, tool) WHERE namespace_id IS NOT NULL;
CREATE UNIQUE INDEX index_tool_rules_on_project_and_tool ON tool_rules (project_id, tool) WHERE project_id IS NOT NULL;

CREATE TABLE tool_approvals_used (
    nonce   TEXT     PRIMARY KEY,
    user_id INTEGER  NOT NULL,
    tool    TEXT     NOT NULL,
    action  TEXT     NOT NULL,
    used_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- +goose Down
DROP TABLE tool_approvals_used;
DROP TABLE tool_rules;
