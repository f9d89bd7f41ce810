-- +goose Up
-- A GIN index with fastupdate (the default) keeps newly inserted rows in
-- an unsorted pending list until it reaches gin_pending_list_limit (4 MB
-- by default) or (auto)vacuum merges it, and every search through the
-- index reads the whole pending list. After an import the trigram indexes
-- held hundreds of pending pages (issue titles: 304 of 635 pages), so a
-- rare-term search read ~250 pages whatever the project: 17 ms for 3
-- candidate rows. A 256 kB limit bounds that read to 32 pages while still
-- batching inserts; the import also merges the lists when it is done
-- (Imports.AnalyzeBulkWrite). What is pending now is merged here.
ALTER INDEX index_issues_on_title_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_issues_on_description_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_merge_requests_on_title_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_merge_requests_on_description_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_notes_on_body_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_milestones_on_title_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_milestones_on_description_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_wiki_pages_on_slug_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_wiki_pages_on_title_trigram SET (gin_pending_list_limit = 256);
ALTER INDEX index_wiki_pages_on_content_trigram SET (gin_pending_list_limit = 256);
SELECT gin_clean_pending_list(c.oid) FROM pg_class c
	JOIN pg_am a ON a.oid = c.relam AND a.amname = 'gin'
	JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
	WHERE c.relname LIKE '%\_trigram';

-- +goose Down
ALTER INDEX index_issues_on_title_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_issues_on_description_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_merge_requests_on_title_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_merge_requests_on_description_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_notes_on_body_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_milestones_on_title_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_milestones_on_description_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_wiki_pages_on_slug_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_wiki_pages_on_title_trigram RESET (gin_pending_list_limit);
ALTER INDEX index_wiki_pages_on_content_trigram RESET (gin_pending_list_limit);
