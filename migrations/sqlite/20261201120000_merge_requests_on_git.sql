-- +goose Up
-- Merge requests read their commits and diffs from the project's git
-- repository (issue #9 item 4); see the PostgreSQL migration of the same
-- version.
ALTER TABLE merge_requests ADD COLUMN diff_base_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE merge_requests ADD COLUMN merge_commit_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE merge_requests ADD COLUMN squash_commit_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE merge_requests ADD COLUMN merge_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE projects ADD COLUMN merge_method TEXT NOT NULL DEFAULT 'merge'
    CHECK (merge_method IN ('merge', 'rebase_merge', 'ff'));
DROP TABLE merge_request_diff_files;
DROP TABLE merge_request_commits;

-- +goose Down
CREATE TABLE merge_request_commits (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    merge_request_id INTEGER  NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
    sha              TEXT     NOT NULL,
    short_id         TEXT     NOT NULL,
    title            TEXT     NOT NULL DEFAULT '',
    message          TEXT     NOT NULL DEFAULT '',
    author_name      TEXT     NOT NULL DEFAULT '',
    author_email     TEXT     NOT NULL DEFAULT '',
    authored_date    DATETIME NOT NULL,
    committer_name   TEXT     NOT NULL DEFAULT '',
    committer_email  TEXT     NOT NULL DEFAULT '',
    committed_date   DATETIME NOT NULL,
    position         INTEGER  NOT NULL CHECK (position >= 0)
);
CREATE UNIQUE INDEX index_merge_request_commits_on_mr_id_and_position ON merge_request_commits (merge_request_id, position);
CREATE INDEX index_merge_request_commits_on_sha ON merge_request_commits (sha);
CREATE TABLE merge_request_diff_files (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
    old_path         TEXT    NOT NULL,
    new_path         TEXT    NOT NULL,
    a_mode           TEXT    NOT NULL DEFAULT '100644',
    b_mode           TEXT    NOT NULL DEFAULT '100644',
    new_file         BOOLEAN NOT NULL DEFAULT 0,
    renamed_file     BOOLEAN NOT NULL DEFAULT 0,
    deleted_file     BOOLEAN NOT NULL DEFAULT 0,
    diff             TEXT    NOT NULL DEFAULT '',
    position         INTEGER NOT NULL CHECK (position >= 0)
);
CREATE UNIQUE INDEX index_merge_request_diff_files_on_mr_id_and_position ON merge_request_diff_files (merge_request_id, position);
ALTER TABLE projects DROP COLUMN merge_method;
ALTER TABLE merge_requests DROP COLUMN merge_user_id;
ALTER TABLE merge_requests DROP COLUMN squash_commit_sha;
ALTER TABLE merge_requests DROP COLUMN merge_commit_sha;
ALTER TABLE merge_requests DROP COLUMN diff_base_sha;
