-- +goose Up
-- Issue view changes (issue #12): on PostgreSQL this version adds the
-- triggers that announce, on glmcp_views, every change to a row an issue
-- view is read from, for each instance's in-memory cache of get_issue's
-- reads. The embedded store has nothing to announce to: its cache is
-- kept true by marks in the file instead (20261201200000). The version
-- exists so both stores share the list.
SELECT 1;

-- +goose Down
SELECT 1;
