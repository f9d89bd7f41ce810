-- +goose NO TRANSACTION
-- +goose Up
-- audit_events takes a row per tools/call, and every index is written on
-- every row: the PostgreSQL server's CPU per audit row is most of what the
-- audit trail costs a call (doc/performance.md, "Safety defences"). The
-- primary key on id and the index on created_at become one index on
-- (created_at, id): the reads' order (newest first, created_at DESC, id
-- DESC) is that index read backwards, --since and the retention prune are
-- its prefix; id stays unique by its sequence, and nothing looks a row up
-- by id. The index on (username, created_at) stays for audit list --user.
-- Without a primary key the table names its whole row as its replica
-- identity, so that the prune's DELETE still works under a logical
-- replication publication (it costs nothing otherwise). The new index is
-- built CONCURRENTLY, outside a transaction: the audit writer keeps
-- writing meanwhile.
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_audit_events_on_created_at_and_id ON audit_events (created_at, id);
ALTER TABLE audit_events REPLICA IDENTITY FULL;
ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_pkey;
DROP INDEX CONCURRENTLY IF EXISTS index_audit_events_on_created_at;

-- +goose Down
-- Not CONCURRENTLY: ConcurrentIndexes (migrations.go) counts every index a
-- file builds so, and this one is not there after Up.
CREATE INDEX IF NOT EXISTS index_audit_events_on_created_at ON audit_events (created_at);
ALTER TABLE audit_events ADD PRIMARY KEY (id);
ALTER TABLE audit_events REPLICA IDENTITY DEFAULT;
DROP INDEX CONCURRENTLY IF EXISTS index_audit_events_on_created_at_and_id;
