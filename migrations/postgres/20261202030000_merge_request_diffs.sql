-- +goose Up
-- The diff of a merge request as a project export archive carried it
-- (models.MergeRequestDiff as one JSON document), kept only for a merge
-- request whose commits the imported repository lacks; every other diff
-- is read from git.
CREATE TABLE merge_request_diffs (
    merge_request_id bigint PRIMARY KEY REFERENCES merge_requests (id) ON DELETE CASCADE,
    diff             jsonb  NOT NULL
);

-- +goose Down
DROP TABLE merge_request_diffs;
