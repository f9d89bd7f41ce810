-- +goose Up
-- The exported diff of a merge request whose commits the imported
-- repository lacks; see the PostgreSQL migration of the same version.
CREATE TABLE merge_request_diffs (
    merge_request_id INTEGER PRIMARY KEY REFERENCES merge_requests (id) ON DELETE CASCADE,
    diff             TEXT    NOT NULL
);

-- +goose Down
DROP TABLE merge_request_diffs;
