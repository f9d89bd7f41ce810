-- +goose Up
CREATE TABLE issues (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id   INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    iid          INTEGER  NOT NULL CHECK (iid > 0),
    title        TEXT     NOT NULL CHECK (title <> ''),
    description  TEXT     NOT NULL DEFAULT '',
    state        TEXT     NOT NULL DEFAULT 'opened' CHECK (state IN ('opened', 'closed')),
    labels       TEXT     NOT NULL DEFAULT '[]',
    milestone    TEXT     NOT NULL DEFAULT '',
    confidential BOOLEAN  NOT NULL DEFAULT 0,
    author_id    INTEGER  NOT NULL REFERENCES users (id),
    created_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    closed_at    DATETIME
);
CREATE UNIQUE INDEX index_issues_on_project_id_and_iid ON issues (project_id, iid);
CREATE INDEX index_issues_on_project_id_and_state ON issues (project_id, state);
CREATE INDEX index_issues_on_author_id ON issues (author_id);

CREATE TABLE issue_assignees (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (issue_id, user_id)
);
CREATE INDEX index_issue_assignees_on_user_id ON issue_assignees (user_id);

-- +goose Down
DROP TABLE issue_assignees;
DROP TABLE issues;
