-- +goose Up
-- As on PostgreSQL, the reads' order (created_at DESC, id DESC) is one
-- index read backwards, which also serves --since and the retention
-- prune. id stays the rowid (INTEGER PRIMARY KEY: no index of its own).
CREATE INDEX index_audit_events_on_created_at_and_id ON audit_events (created_at, id);
DROP INDEX index_audit_events_on_created_at;

-- +goose Down
CREATE INDEX index_audit_events_on_created_at ON audit_events (created_at);
DROP INDEX index_audit_events_on_created_at_and_id;
