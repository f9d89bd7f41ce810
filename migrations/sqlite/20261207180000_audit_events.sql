-- +goose Up
-- One row per tools/call, shaped like GitLab's ai_tool_invoked audit event
-- (doc/security.md, "Audit events"). Argument names only, never values.
-- No foreign keys: an audit trail outlives the users and tokens it names.
CREATE TABLE audit_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at DATETIME NOT NULL,
    event_name TEXT NOT NULL,
    user_id BIGINT NOT NULL DEFAULT 0,
    username TEXT NOT NULL DEFAULT '',
    token_id BIGINT NOT NULL DEFAULT 0,
    client_name TEXT NOT NULL DEFAULT '',
    client_version TEXT NOT NULL DEFAULT '',
    tool TEXT NOT NULL DEFAULT '',
    target TEXT NOT NULL DEFAULT '',
    target_type TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL CHECK (outcome IN ('success', 'tool_error', 'refused', 'failed')),
    duration_ms BIGINT NOT NULL DEFAULT 0,
    correlation_id TEXT NOT NULL DEFAULT '',
    argument_names TEXT NOT NULL DEFAULT ''
);
CREATE INDEX index_audit_events_on_created_at ON audit_events (created_at);
CREATE INDEX index_audit_events_on_username_created_at ON audit_events (username, created_at);

-- +goose Down
DROP TABLE audit_events;
