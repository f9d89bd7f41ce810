-- +goose Up
-- As on PostgreSQL: a row per batch of the audit writer, its events in the
-- store's binary encoding (services/store/audit.go) or, moved here from
-- audit_events, a JSON array. SQLite has no arrays: usernames and targets
-- are the batch's distinct values, each between two U+001F separators,
-- which the reads match with instr() before decoding the events.
-- AUTOINCREMENT: a pruned row's id (and so its events' ids) is never
-- given again.
CREATE TABLE audit_event_batches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    first_at DATETIME NOT NULL,
    last_at DATETIME NOT NULL,
    n INTEGER NOT NULL,
    usernames TEXT NOT NULL,
    targets TEXT NOT NULL,
    events BLOB NOT NULL
);
CREATE INDEX index_audit_event_batches_on_last_at_and_id ON audit_event_batches (last_at, id);
CREATE INDEX index_audit_event_batches_on_first_at ON audit_event_batches (first_at);
-- Up to 1,024 old events a row, keeping their ids (see the PostgreSQL
-- migration); new rows take ids above the largest. The moved rows list
-- a name once per event (group_concat has no DISTINCT with a separator).
INSERT INTO audit_event_batches (id, first_at, last_at, n, usernames, targets, events)
SELECT g + 1, min(created_at), max(created_at), count(*),
       char(31) || group_concat(username, char(31)) || char(31),
       char(31) || group_concat(target, char(31)) || char(31),
       CAST(json_group_array(json_object('id', id, 'created_at', created_at,
           'event_name', event_name, 'user_id', user_id, 'username', username, 'token_id', token_id,
           'client_name', client_name, 'client_version', client_version, 'tool', tool, 'target', target,
           'target_type', target_type, 'outcome', outcome, 'duration_ms', duration_ms,
           'correlation_id', correlation_id, 'argument_names', argument_names)) AS BLOB)
FROM (SELECT id / 1024 AS g, * FROM audit_events ORDER BY id) GROUP BY g;
DROP TABLE audit_events;

-- +goose Down
-- The table as 20261207220000 left it, empty: events written as batches
-- are not unpacked back into rows.
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
CREATE INDEX index_audit_events_on_created_at_and_id ON audit_events (created_at, id);
CREATE INDEX index_audit_events_on_username_created_at ON audit_events (username, created_at);
DROP TABLE audit_event_batches;
