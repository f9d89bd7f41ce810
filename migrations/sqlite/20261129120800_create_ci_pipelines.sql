-- +goose Up
CREATE TABLE ci_pipelines (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id       INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    iid              INTEGER  NOT NULL CHECK (iid > 0),
    sha              TEXT     NOT NULL,
    ref              TEXT     NOT NULL,
    status           TEXT     NOT NULL DEFAULT 'created',
    source           TEXT     NOT NULL DEFAULT 'push',
    user_id          INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    merge_request_id INTEGER  REFERENCES merge_requests (id) ON DELETE SET NULL,
    created_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    started_at       DATETIME,
    finished_at      DATETIME,
    CHECK (status IN ('created', 'waiting_for_resource', 'preparing', 'pending', 'running',
        'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'))
);
CREATE UNIQUE INDEX index_ci_pipelines_on_project_id_and_iid ON ci_pipelines (project_id, iid);
CREATE INDEX index_ci_pipelines_on_project_id_and_ref ON ci_pipelines (project_id, ref, id);
CREATE INDEX index_ci_pipelines_on_merge_request_id ON ci_pipelines (merge_request_id);

CREATE TABLE ci_jobs (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    pipeline_id    INTEGER  NOT NULL REFERENCES ci_pipelines (id) ON DELETE CASCADE,
    project_id     INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name           TEXT     NOT NULL CHECK (name <> ''),
    stage          TEXT     NOT NULL DEFAULT 'test',
    status         TEXT     NOT NULL DEFAULT 'created',
    ref            TEXT     NOT NULL,
    allow_failure  BOOLEAN  NOT NULL DEFAULT 0,
    failure_reason TEXT     NOT NULL DEFAULT '',
    duration       REAL,
    created_at     DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    started_at     DATETIME,
    finished_at    DATETIME,
    CHECK (status IN ('created', 'waiting_for_resource', 'preparing', 'pending', 'running',
        'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'))
);
CREATE INDEX index_ci_jobs_on_pipeline_id ON ci_jobs (pipeline_id, id);
CREATE INDEX index_ci_jobs_on_project_id ON ci_jobs (project_id);

-- +goose Down
DROP TABLE ci_jobs;
DROP TABLE ci_pipelines;
