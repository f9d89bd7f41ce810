-- +goose Up
-- Issue view changes (issue #12): on PostgreSQL this version adds the
-- triggers that announce, on glmcp_views, every change to a row an issue
-- view is read from, for each instance's in-memory cache of get_issue's
-- reads. The embedded store keeps no such cache (get_issue reads the file
-- every time), so there is nothing to announce: the version exists so
-- both stores share the list.
SELECT 1;

-- +goose Down
SELECT 1;
