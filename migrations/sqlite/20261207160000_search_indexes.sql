-- +goose Up
-- Search (the search tool, list_work_items' search) matches a substring
-- anywhere in titles, descriptions, note bodies, wiki pages and milestones.
-- Each searched table gets an FTS5 index with the trigram tokenizer, which
-- answers substring queries of three characters or more, case-insensitively
-- (the store falls back to LIKE for shorter terms). The FTS5 tables are
-- external-content: they hold only the index, the text stays in the table,
-- and triggers keep the index in step with every insert, update and delete
-- (cascades included). A migration that later rebuilds one of these tables
-- must recreate its triggers. The 'rebuild' commands index the rows already
-- there. The fts5vocab tables tell the store how many rows hold each
-- trigram: a term whose trigrams are all common is found sooner by reading
-- the project's newest rows than through the index.
CREATE VIRTUAL TABLE issues_fts USING fts5(title, description, content='issues', content_rowid='id', tokenize='trigram');
-- +goose StatementBegin
CREATE TRIGGER issues_fts_after_insert AFTER INSERT ON issues BEGIN
    INSERT INTO issues_fts (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER issues_fts_after_delete AFTER DELETE ON issues BEGIN
    INSERT INTO issues_fts (issues_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER issues_fts_after_update AFTER UPDATE OF title, description ON issues BEGIN
    INSERT INTO issues_fts (issues_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
    INSERT INTO issues_fts (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
-- +goose StatementEnd
INSERT INTO issues_fts (issues_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE issues_fts_vocab USING fts5vocab(issues_fts, 'row');

CREATE VIRTUAL TABLE merge_requests_fts USING fts5(title, description, content='merge_requests', content_rowid='id', tokenize='trigram');
-- +goose StatementBegin
CREATE TRIGGER merge_requests_fts_after_insert AFTER INSERT ON merge_requests BEGIN
    INSERT INTO merge_requests_fts (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER merge_requests_fts_after_delete AFTER DELETE ON merge_requests BEGIN
    INSERT INTO merge_requests_fts (merge_requests_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER merge_requests_fts_after_update AFTER UPDATE OF title, description ON merge_requests BEGIN
    INSERT INTO merge_requests_fts (merge_requests_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
    INSERT INTO merge_requests_fts (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
-- +goose StatementEnd
INSERT INTO merge_requests_fts (merge_requests_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE merge_requests_fts_vocab USING fts5vocab(merge_requests_fts, 'row');

CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id', tokenize='trigram');
-- +goose StatementBegin
CREATE TRIGGER notes_fts_after_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts (rowid, body) VALUES (new.id, new.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_fts_after_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_fts_after_update AFTER UPDATE OF body ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
    INSERT INTO notes_fts (rowid, body) VALUES (new.id, new.body);
END;
-- +goose StatementEnd
INSERT INTO notes_fts (notes_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE notes_fts_vocab USING fts5vocab(notes_fts, 'row');

CREATE VIRTUAL TABLE milestones_fts USING fts5(title, description, content='milestones', content_rowid='id', tokenize='trigram');
-- +goose StatementBegin
CREATE TRIGGER milestones_fts_after_insert AFTER INSERT ON milestones BEGIN
    INSERT INTO milestones_fts (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER milestones_fts_after_delete AFTER DELETE ON milestones BEGIN
    INSERT INTO milestones_fts (milestones_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER milestones_fts_after_update AFTER UPDATE OF title, description ON milestones BEGIN
    INSERT INTO milestones_fts (milestones_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
    INSERT INTO milestones_fts (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
-- +goose StatementEnd
INSERT INTO milestones_fts (milestones_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE milestones_fts_vocab USING fts5vocab(milestones_fts, 'row');

CREATE VIRTUAL TABLE wiki_pages_fts USING fts5(slug, title, content, content='wiki_pages', content_rowid='id', tokenize='trigram');
-- +goose StatementBegin
CREATE TRIGGER wiki_pages_fts_after_insert AFTER INSERT ON wiki_pages BEGIN
    INSERT INTO wiki_pages_fts (rowid, slug, title, content) VALUES (new.id, new.slug, new.title, new.content);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER wiki_pages_fts_after_delete AFTER DELETE ON wiki_pages BEGIN
    INSERT INTO wiki_pages_fts (wiki_pages_fts, rowid, slug, title, content) VALUES ('delete', old.id, old.slug, old.title, old.content);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER wiki_pages_fts_after_update AFTER UPDATE OF slug, title, content ON wiki_pages BEGIN
    INSERT INTO wiki_pages_fts (wiki_pages_fts, rowid, slug, title, content) VALUES ('delete', old.id, old.slug, old.title, old.content);
    INSERT INTO wiki_pages_fts (rowid, slug, title, content) VALUES (new.id, new.slug, new.title, new.content);
END;
-- +goose StatementEnd
INSERT INTO wiki_pages_fts (wiki_pages_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE wiki_pages_fts_vocab USING fts5vocab(wiki_pages_fts, 'row');

-- Search pages are ordered by (created_at, id) within a project.
CREATE INDEX index_notes_on_project_id_and_created_at_and_id ON notes (project_id, created_at, id);
CREATE INDEX index_merge_requests_on_project_id_and_created_at_and_id ON merge_requests (project_id, created_at, id);
-- The notes search leaves out notes on confidential issues the viewer may
-- not read: this finds those issues without reading the others.
CREATE INDEX index_issues_on_id_where_confidential ON issues (id) WHERE confidential;

-- +goose Down
DROP INDEX index_issues_on_id_where_confidential;
DROP INDEX index_merge_requests_on_project_id_and_created_at_and_id;
DROP INDEX index_notes_on_project_id_and_created_at_and_id;
DROP TRIGGER wiki_pages_fts_after_insert;
DROP TRIGGER wiki_pages_fts_after_delete;
DROP TRIGGER wiki_pages_fts_after_update;
DROP TABLE wiki_pages_fts_vocab;
DROP TABLE wiki_pages_fts;
DROP TRIGGER milestones_fts_after_insert;
DROP TRIGGER milestones_fts_after_delete;
DROP TRIGGER milestones_fts_after_update;
DROP TABLE milestones_fts_vocab;
DROP TABLE milestones_fts;
DROP TRIGGER notes_fts_after_insert;
DROP TRIGGER notes_fts_after_delete;
DROP TRIGGER notes_fts_after_update;
DROP TABLE notes_fts_vocab;
DROP TABLE notes_fts;
DROP TRIGGER merge_requests_fts_after_insert;
DROP TRIGGER merge_requests_fts_after_delete;
DROP TRIGGER merge_requests_fts_after_update;
DROP TABLE merge_requests_fts_vocab;
DROP TABLE merge_requests_fts;
DROP TRIGGER issues_fts_after_insert;
DROP TRIGGER issues_fts_after_delete;
DROP TRIGGER issues_fts_after_update;
DROP TABLE issues_fts_vocab;
DROP TABLE issues_fts;
