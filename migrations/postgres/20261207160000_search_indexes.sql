-- +goose NO TRANSACTION
-- +goose Up
-- Search (the search tool, list_work_items' search) matches a substring
-- anywhere in titles, descriptions, note bodies, wiki pages and milestones
-- (column ILIKE '%term%'). A B-tree cannot serve that; a pg_trgm GIN index
-- can, as GitLab's index_issues_on_title_trigram and its siblings do. The
-- indexes are built CONCURRENTLY, outside a transaction, so a large existing
-- table stays writable while they build. An interrupted build leaves an
-- INVALID index behind: migrations.Up rebuilds those (see repairIndexes),
-- and IF NOT EXISTS lets this file run again after such an interruption.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_title_trigram ON issues USING gin (title gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_description_trigram ON issues USING gin (description gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_title_trigram ON merge_requests USING gin (title gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_description_trigram ON merge_requests USING gin (description gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_notes_on_body_trigram ON notes USING gin (body gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_milestones_on_title_trigram ON milestones USING gin (title gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_milestones_on_description_trigram ON milestones USING gin (description gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_slug_trigram ON wiki_pages USING gin (slug gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_title_trigram ON wiki_pages USING gin (title gin_trgm_ops);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_content_trigram ON wiki_pages USING gin (content gin_trgm_ops);
-- Search pages are ordered by (created_at, id) within a project: with these
-- a common term reads the newest rows of the project and stops at the page
-- (issues already have index_issues_on_project_id_and_created_at_and_id).
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_notes_on_project_id_and_created_at_and_id ON notes (project_id, created_at, id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_project_id_and_created_at_and_id ON merge_requests (project_id, created_at, id);
-- The notes search leaves out notes on confidential issues the viewer may
-- not read: this finds those issues without reading the others.
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_id_where_confidential ON issues (id) WHERE confidential;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_id_where_confidential;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_project_id_and_created_at_and_id;
DROP INDEX CONCURRENTLY IF EXISTS index_notes_on_project_id_and_created_at_and_id;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_content_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_slug_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_milestones_on_description_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_milestones_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_notes_on_body_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_description_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_description_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_title_trigram;
