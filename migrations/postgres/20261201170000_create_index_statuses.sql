-- +goose Up
-- What the code index (repository_files) holds for a project: the default
-- branch it was read from and that branch's commit at the time (GitLab's
-- index_statuses.last_commit, plus the branch). A re-index replaces the
-- project's rows only if last_commit is still what it read (a
-- compare-and-swap), so two re-indexers never interleave.
CREATE TABLE index_statuses (
    project_id  bigint      PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    ref         text        NOT NULL,
    last_commit text        NOT NULL DEFAULT '',
    files       integer     NOT NULL DEFAULT 0,
    indexed_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE index_statuses;
