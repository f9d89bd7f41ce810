-- +goose Up
-- The audit writer's batch (up to 200 events or 200 ms of them) becomes one
-- row instead of a row per tools/call: a row's fixed cost in PostgreSQL
-- (heap tuple, WAL record, an entry in each index) was most of what the
-- audit trail cost a cheap call (doc/performance.md, "Safety defences").
-- events holds the batch's events in the store's own binary encoding
-- (services/store/audit.go), or, for rows moved here from audit_events, a
-- JSON array; usernames and targets are the batch's distinct values, so
-- that audit list --user / --project find their batches through the GIN
-- indexes, and first_at / last_at bound its events' times (--since, the
-- newest-first order, the retention prune). n is its number of events.
CREATE TABLE audit_event_batches (
    id bigserial PRIMARY KEY,
    first_at timestamptz NOT NULL,
    last_at timestamptz NOT NULL,
    n integer NOT NULL,
    usernames text[] NOT NULL,
    targets text[] NOT NULL,
    events bytea COMPRESSION lz4 NOT NULL
);
CREATE INDEX index_audit_event_batches_on_last_at_and_id ON audit_event_batches (last_at, id);
CREATE INDEX index_audit_event_batches_on_first_at ON audit_event_batches (first_at);
CREATE INDEX index_audit_event_batches_on_usernames ON audit_event_batches USING gin (usernames);
CREATE INDEX index_audit_event_batches_on_targets ON audit_event_batches USING gin (targets);
-- The events written so far move here, up to 1,024 a row, keeping their
-- ids: row id / 1024 + 1 holds ids [1024(row-1), 1024 row), and the new
-- rows' ids start above, so an event id the store makes for a new row
-- (row id × 1024 + its place in the row) is above every old one.
-- An instance of the previous version still serving writes its events
-- until the table goes: the lock makes it wait for the drop (its insert
-- then fails and is retried into the new table by the new version's
-- writer, or lost with the old process), instead of committing rows after
-- the copy read the table, which the drop would take with it.
LOCK TABLE audit_events IN EXCLUSIVE MODE;
INSERT INTO audit_event_batches (id, first_at, last_at, n, usernames, targets, events)
SELECT id / 1024 + 1, min(created_at), max(created_at), count(*), array_agg(DISTINCT username), array_agg(DISTINCT target),
       convert_to(json_agg(json_build_object('id', id, 'at_us', (extract(epoch FROM created_at) * 1000000)::bigint,
           'event_name', event_name, 'user_id', user_id, 'username', username, 'token_id', token_id,
           'client_name', client_name, 'client_version', client_version, 'tool', tool, 'target', target,
           'target_type', target_type, 'outcome', outcome, 'duration_ms', duration_ms,
           'correlation_id', correlation_id, 'argument_names', argument_names) ORDER BY id)::text, 'UTF8')
FROM audit_events GROUP BY id / 1024;
SELECT setval(pg_get_serial_sequence('audit_event_batches', 'id'), COALESCE(max(id), 0) + 1, false) FROM audit_event_batches;
DROP TABLE audit_events;

-- +goose Down
-- The table as 20261207220000 left it, empty: events written as batches
-- are not unpacked back into rows.
CREATE TABLE audit_events (
    id bigserial NOT NULL,
    created_at timestamptz NOT NULL,
    event_name text NOT NULL,
    user_id bigint NOT NULL DEFAULT 0,
    username text NOT NULL DEFAULT '',
    token_id bigint NOT NULL DEFAULT 0,
    client_name text NOT NULL DEFAULT '',
    client_version text NOT NULL DEFAULT '',
    tool text NOT NULL DEFAULT '',
    target text NOT NULL DEFAULT '',
    target_type text NOT NULL DEFAULT '',
    outcome text NOT NULL CHECK (outcome IN ('success', 'tool_error', 'refused', 'failed')),
    duration_ms bigint NOT NULL DEFAULT 0,
    correlation_id text NOT NULL DEFAULT '',
    argument_names text NOT NULL DEFAULT ''
);
ALTER TABLE audit_events REPLICA IDENTITY FULL;
CREATE INDEX index_audit_events_on_created_at_and_id ON audit_events (created_at, id);
CREATE INDEX index_audit_events_on_username_created_at ON audit_events (username, created_at);
DROP TABLE audit_event_batches;
