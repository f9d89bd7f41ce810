-- +goose Up
-- Issue view versions (issue #12): on the embedded store this version adds
-- the triggers that mark, in a counter table, every change to a row an
-- issue view is read from; its cache reads the marks before each use.
-- PostgreSQL announces the same changes with NOTIFY (migration
-- 20261201180000) and has no counter: the version exists so both stores
-- share the list.
SELECT 1;

-- +goose Down
SELECT 1;
