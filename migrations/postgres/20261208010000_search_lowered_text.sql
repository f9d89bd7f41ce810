-- +goose NO TRANSACTION
-- +goose Up
-- Search matches a term case-insensitively (ILIKE '%term%'). For a UTF-8
-- database PostgreSQL runs ILIKE as lower(text) LIKE lower(pattern): it
-- lowers the whole text of every row it tests. The trigram indexes find a
-- rare term's few rows, but a common term's capped count tests up to 1,001
-- rows, and lowering a 450-byte merge request description is most of that
-- work (3.8 ms against 0.4 ms for the same count on pre-lowered text).
--
-- So each searched text column gets a <column>_lower twin holding
-- lower(<column>), kept by a BEFORE trigger for every writer, and search
-- matches coalesce(<column>_lower, lower(<column>)) LIKE lower(pattern):
-- exactly ILIKE's answer (the same lower(), with the column's collation),
-- also for a row whose twin is still empty. The trigram indexes move to
-- that expression. The columns are the ones SQLite's FTS5 tables index
-- (store.ftsIndexed).
--
-- Nothing here locks a table for longer than a catalog change: the
-- columns are added without a default (no rewrite), existing rows are
-- filled in batches of 10,000, each committed, and the indexes are built
-- CONCURRENTLY. A run interrupted midway can run again: each step skips
-- what is done, and migrations.Up rebuilds an index a build left INVALID.
-- An instance of an older glmcp still serving the store reads with
-- SELECT *: each of its prepared reads of these tables fails once per
-- connection after the columns are added (doc/architecture.md, "Search
-- indexes").
ALTER TABLE issues ADD COLUMN IF NOT EXISTS title_lower text, ADD COLUMN IF NOT EXISTS description_lower text;
ALTER TABLE merge_requests ADD COLUMN IF NOT EXISTS title_lower text, ADD COLUMN IF NOT EXISTS description_lower text;
ALTER TABLE notes ADD COLUMN IF NOT EXISTS body_lower text;
ALTER TABLE milestones ADD COLUMN IF NOT EXISTS title_lower text, ADD COLUMN IF NOT EXISTS description_lower text;
ALTER TABLE wiki_pages ADD COLUMN IF NOT EXISTS slug_lower text, ADD COLUMN IF NOT EXISTS title_lower text, ADD COLUMN IF NOT EXISTS content_lower text;

-- The twins are set on every INSERT, and on every UPDATE that writes a
-- searched column or a twin: whatever a statement writes to a twin, it
-- ends equal to lower() of its column. An UPDATE of other columns (a
-- merge, a review, a resolved thread) leaves the twins alone; recomputing
-- them would store new copies of a long text (and its trigrams) where
-- PostgreSQL otherwise updates the row in place. Issues, merge requests
-- and milestones share the title and description pair, so one function
-- serves the three.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION glmcp_lower_issue_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.title_lower := lower(NEW.title);
    NEW.description_lower := lower(NEW.description);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION glmcp_lower_note_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.body_lower := lower(NEW.body);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION glmcp_lower_wiki_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.slug_lower := lower(NEW.slug);
    NEW.title_lower := lower(NEW.title);
    NEW.content_lower := lower(NEW.content);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE OR REPLACE TRIGGER issues_lower_text BEFORE INSERT OR UPDATE OF title, description, title_lower, description_lower
    ON issues FOR EACH ROW EXECUTE FUNCTION glmcp_lower_issue_text();
CREATE OR REPLACE TRIGGER merge_requests_lower_text BEFORE INSERT OR UPDATE OF title, description, title_lower, description_lower
    ON merge_requests FOR EACH ROW EXECUTE FUNCTION glmcp_lower_issue_text();
CREATE OR REPLACE TRIGGER milestones_lower_text BEFORE INSERT OR UPDATE OF title, description, title_lower, description_lower
    ON milestones FOR EACH ROW EXECUTE FUNCTION glmcp_lower_issue_text();
CREATE OR REPLACE TRIGGER notes_lower_text BEFORE INSERT OR UPDATE OF body, body_lower
    ON notes FOR EACH ROW EXECUTE FUNCTION glmcp_lower_note_text();
CREATE OR REPLACE TRIGGER wiki_pages_lower_text BEFORE INSERT OR UPDATE OF slug, title, content, slug_lower, title_lower, content_lower
    ON wiki_pages FOR EACH ROW EXECUTE FUNCTION glmcp_lower_wiki_text();

-- The twins carry no statistics of their own: the planner reads those of
-- the index expressions, which ANALYZE gathers.
ALTER TABLE issues ALTER COLUMN title_lower SET STATISTICS 0, ALTER COLUMN description_lower SET STATISTICS 0;
ALTER TABLE merge_requests ALTER COLUMN title_lower SET STATISTICS 0, ALTER COLUMN description_lower SET STATISTICS 0;
ALTER TABLE notes ALTER COLUMN body_lower SET STATISTICS 0;
ALTER TABLE milestones ALTER COLUMN title_lower SET STATISTICS 0, ALTER COLUMN description_lower SET STATISTICS 0;
ALTER TABLE wiki_pages ALTER COLUMN slug_lower SET STATISTICS 0, ALTER COLUMN title_lower SET STATISTICS 0,
    ALTER COLUMN content_lower SET STATISTICS 0;

-- While the fill below runs, a change of the twins alone is no change of
-- the issue or merge request: the fill must not announce every row to
-- listen streams and views (migrations 20261201140000 and
-- 20261201180000). These conditions (to_jsonb of both rows, about 11 µs
-- an update against 2) last only as long as the fill: afterwards the
-- twins change only with their columns, and the plain comparison comes
-- back.
CREATE OR REPLACE TRIGGER issues_resource_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN ((to_jsonb(OLD) - '{title_lower,description_lower}'::text[]) IS DISTINCT FROM (to_jsonb(NEW) - '{title_lower,description_lower}'::text[]))
    EXECUTE FUNCTION glmcp_resource_changed('i', 'iid');
CREATE OR REPLACE TRIGGER merge_requests_resource_changed AFTER UPDATE ON merge_requests FOR EACH ROW
    WHEN ((to_jsonb(OLD) - '{title_lower,description_lower}'::text[]) IS DISTINCT FROM (to_jsonb(NEW) - '{title_lower,description_lower}'::text[]))
    EXECUTE FUNCTION glmcp_resource_changed('m', 'iid');
CREATE OR REPLACE TRIGGER issues_view_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN ((to_jsonb(OLD) - '{title_lower,description_lower}'::text[]) IS DISTINCT FROM (to_jsonb(NEW) - '{title_lower,description_lower}'::text[]))
    EXECUTE FUNCTION glmcp_view_changed('i', 'id');

-- +goose StatementBegin
DO $$
DECLARE
    t text[];
    lo bigint;
    hi bigint;
BEGIN
    FOREACH t SLICE 1 IN ARRAY ARRAY[
        ['issues', 'title_lower = lower(title), description_lower = lower(description)', 'title_lower'],
        ['merge_requests', 'title_lower = lower(title), description_lower = lower(description)', 'title_lower'],
        ['milestones', 'title_lower = lower(title), description_lower = lower(description)', 'title_lower'],
        ['notes', 'body_lower = lower(body)', 'body_lower'],
        ['wiki_pages', 'slug_lower = lower(slug), title_lower = lower(title), content_lower = lower(content)', 'slug_lower']
    ] LOOP
        EXECUTE format('SELECT min(id), max(id) FROM %I', t[1]) INTO lo, hi;
        WHILE lo <= hi LOOP
            EXECUTE format('UPDATE %I SET %s WHERE id >= $1 AND id < $2 AND %I IS NULL', t[1], t[2], t[3])
                USING lo, lo + 10000;
            COMMIT;
            lo := lo + 10000;
        END LOOP;
    END LOOP;
END
$$;
-- +goose StatementEnd

CREATE OR REPLACE TRIGGER issues_view_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_view_changed('i', 'id');
CREATE OR REPLACE TRIGGER merge_requests_resource_changed AFTER UPDATE ON merge_requests FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('m', 'iid');
CREATE OR REPLACE TRIGGER issues_resource_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('i', 'iid');

CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_title_lower_trigram ON issues
    USING gin (coalesce(title_lower, lower(title)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_description_lower_trigram ON issues
    USING gin (coalesce(description_lower, lower(description)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_title_lower_trigram ON merge_requests
    USING gin (coalesce(title_lower, lower(title)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_description_lower_trigram ON merge_requests
    USING gin (coalesce(description_lower, lower(description)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_notes_on_body_lower_trigram ON notes
    USING gin (coalesce(body_lower, lower(body)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_milestones_on_title_lower_trigram ON milestones
    USING gin (coalesce(title_lower, lower(title)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_milestones_on_description_lower_trigram ON milestones
    USING gin (coalesce(description_lower, lower(description)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_slug_lower_trigram ON wiki_pages
    USING gin (coalesce(slug_lower, lower(slug)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_title_lower_trigram ON wiki_pages
    USING gin (coalesce(title_lower, lower(title)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_content_lower_trigram ON wiki_pages
    USING gin (coalesce(content_lower, lower(content)) gin_trgm_ops) WITH (gin_pending_list_limit = 256);

-- The indexes on the raw columns serve no query now.
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_description_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_description_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_notes_on_body_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_milestones_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_milestones_on_description_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_slug_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_title_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_content_trigram;

-- The planner's row estimate for a search (which chooses between the
-- trigram indexes and the page's ordered index, store.pgFewMatches) comes
-- from the statistics ANALYZE gathers on each index expression.
ANALYZE issues;
ANALYZE merge_requests;
ANALYZE notes;
ANALYZE milestones;
ANALYZE wiki_pages;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_title_trigram ON issues USING gin (title gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_issues_on_description_trigram ON issues USING gin (description gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_title_trigram ON merge_requests USING gin (title gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_merge_requests_on_description_trigram ON merge_requests USING gin (description gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_notes_on_body_trigram ON notes USING gin (body gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_milestones_on_title_trigram ON milestones USING gin (title gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_milestones_on_description_trigram ON milestones USING gin (description gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_slug_trigram ON wiki_pages USING gin (slug gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_title_trigram ON wiki_pages USING gin (title gin_trgm_ops) WITH (gin_pending_list_limit = 256);
CREATE INDEX CONCURRENTLY IF NOT EXISTS index_wiki_pages_on_content_trigram ON wiki_pages USING gin (content gin_trgm_ops) WITH (gin_pending_list_limit = 256);
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_content_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_title_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_wiki_pages_on_slug_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_milestones_on_description_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_milestones_on_title_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_notes_on_body_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_description_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_merge_requests_on_title_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_description_lower_trigram;
DROP INDEX CONCURRENTLY IF EXISTS index_issues_on_title_lower_trigram;
CREATE OR REPLACE TRIGGER issues_view_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_view_changed('i', 'id');
CREATE OR REPLACE TRIGGER merge_requests_resource_changed AFTER UPDATE ON merge_requests FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('m', 'iid');
CREATE OR REPLACE TRIGGER issues_resource_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('i', 'iid');
DROP TRIGGER IF EXISTS wiki_pages_lower_text ON wiki_pages;
DROP TRIGGER IF EXISTS notes_lower_text ON notes;
DROP TRIGGER IF EXISTS milestones_lower_text ON milestones;
DROP TRIGGER IF EXISTS merge_requests_lower_text ON merge_requests;
DROP TRIGGER IF EXISTS issues_lower_text ON issues;
DROP FUNCTION IF EXISTS glmcp_lower_wiki_text();
DROP FUNCTION IF EXISTS glmcp_lower_note_text();
DROP FUNCTION IF EXISTS glmcp_lower_issue_text();
ALTER TABLE wiki_pages DROP COLUMN IF EXISTS content_lower, DROP COLUMN IF EXISTS title_lower, DROP COLUMN IF EXISTS slug_lower;
ALTER TABLE milestones DROP COLUMN IF EXISTS description_lower, DROP COLUMN IF EXISTS title_lower;
ALTER TABLE notes DROP COLUMN IF EXISTS body_lower;
ALTER TABLE merge_requests DROP COLUMN IF EXISTS description_lower, DROP COLUMN IF EXISTS title_lower;
ALTER TABLE issues DROP COLUMN IF EXISTS description_lower, DROP COLUMN IF EXISTS title_lower;
