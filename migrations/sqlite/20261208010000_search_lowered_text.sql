-- +goose Up
-- On PostgreSQL this version gives each searched text column a lower-cased
-- twin (kept by triggers) and moves the trigram indexes to it, so a search
-- tests a row without lowering its whole text. SQLite's search reads its
-- FTS5 tables, or folds only when the term is not ASCII (store.matchAny).
-- The version exists so both stores share the list.
SELECT 1;

-- +goose Down
SELECT 1;
