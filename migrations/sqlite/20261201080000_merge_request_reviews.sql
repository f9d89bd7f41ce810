-- +goose Up
ALTER TABLE merge_requests ADD COLUMN squash BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN force_remove_source_branch BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN discussion_locked BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN allow_collaboration BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN milestone_id INTEGER;

CREATE TABLE approvals (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    merge_request_id INTEGER  NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
    user_id          INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_approvals_on_merge_request_id_and_user_id ON approvals (merge_request_id, user_id);
CREATE INDEX index_approvals_on_user_id ON approvals (user_id);

ALTER TABLE notes ADD COLUMN position TEXT;
ALTER TABLE notes ADD COLUMN resolved_at DATETIME;
ALTER TABLE notes ADD COLUMN resolved_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE notes DROP COLUMN resolved_by_id;
ALTER TABLE notes DROP COLUMN resolved_at;
ALTER TABLE notes DROP COLUMN position;
DROP TABLE approvals;
ALTER TABLE merge_requests DROP COLUMN milestone_id;
ALTER TABLE merge_requests DROP COLUMN allow_collaboration;
ALTER TABLE merge_requests DROP COLUMN discussion_locked;
ALTER TABLE merge_requests DROP COLUMN force_remove_source_branch;
ALTER TABLE merge_requests DROP COLUMN squash;
