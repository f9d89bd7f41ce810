-- +goose Up
CREATE TABLE merge_requests (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id    INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    iid           INTEGER  NOT NULL CHECK (iid > 0),
    title         TEXT     NOT NULL CHECK (title <> ''),
    description   TEXT     NOT NULL DEFAULT '',
    state         TEXT     NOT NULL DEFAULT 'opened'
                  CHECK (state IN ('opened', 'closed', 'merged')),
    source_branch TEXT     NOT NULL,
    target_branch TEXT     NOT NULL,
    author_id     INTEGER  NOT NULL REFERENCES users (id),
    labels        TEXT     NOT NULL DEFAULT '[]',
    draft         BOOLEAN  NOT NULL DEFAULT 0,
    merge_status  TEXT     NOT NULL DEFAULT 'unchecked',
    sha           TEXT     NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    merged_at     DATETIME,
    closed_at     DATETIME,
    CHECK (source_branch <> '' AND target_branch <> '')
);
CREATE UNIQUE INDEX index_merge_requests_on_project_id_and_iid ON merge_requests (project_id, iid);
CREATE INDEX index_merge_requests_on_project_id_and_state ON merge_requests (project_id, state);
CREATE INDEX index_merge_requests_on_author_id ON merge_requests (author_id);

CREATE TABLE merge_request_assignees (
    merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
    user_id          INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (merge_request_id, user_id)
);
CREATE INDEX index_merge_request_assignees_on_user_id ON merge_request_assignees (user_id);

CREATE TABLE merge_request_reviewers (
    merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
    user_id          INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (merge_request_id, user_id)
);
CREATE INDEX index_merge_request_reviewers_on_user_id ON merge_request_reviewers (user_id);

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

-- +goose Down
DROP TABLE merge_request_diff_files;
DROP TABLE merge_request_commits;
DROP TABLE merge_request_reviewers;
DROP TABLE merge_request_assignees;
DROP TABLE merge_requests;
