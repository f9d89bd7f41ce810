-- +goose Up
-- On PostgreSQL this version bounds the pending lists of the trigram GIN
-- indexes (which every search through them reads) and merges what is
-- pending. SQLite's FTS5 tables have no pending list to bound. The
-- version exists so both stores share the list.
SELECT 1;

-- +goose Down
SELECT 1;
