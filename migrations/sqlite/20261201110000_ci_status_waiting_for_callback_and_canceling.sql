-- +goose NO TRANSACTION
-- +goose Up
-- GitLab's pipeline and job statuses include waiting_for_callback (a job
-- waiting for an external system) and canceling (a cancel under way); the
-- first CHECK left them out. PostgreSQL swaps its named constraints; SQLite
-- cannot alter a CHECK, so both tables are rebuilt by SQLite's documented
-- procedure (https://www.sqlite.org/lang_altertable.html#otheralter):
-- foreign keys off on this connection (goose runs a NO TRANSACTION
-- migration on one connection), copy inside one transaction (rows are copied
-- unchanged, so no reference can break), keep each table's AUTOINCREMENT counter, restore the
-- indexes. Other tables' REFERENCES name the tables, so they follow the
-- rename.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE ci_pipelines_rebuilt (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id           INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    iid                  INTEGER  NOT NULL CHECK (iid > 0),
    sha                  TEXT     NOT NULL,
    ref                  TEXT     NOT NULL,
    status               TEXT     NOT NULL DEFAULT 'created',
    source               TEXT     NOT NULL DEFAULT 'push',
    user_id              INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    merge_request_id     INTEGER  REFERENCES merge_requests (id) ON DELETE SET NULL,
    created_at           DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at           DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    started_at           DATETIME,
    finished_at          DATETIME,
    name                 TEXT     NOT NULL DEFAULT '',
    tag                  BOOLEAN  NOT NULL DEFAULT 0,
    upstream_pipeline_id INTEGER  REFERENCES ci_pipelines (id) ON DELETE SET NULL,
    source_job_id        INTEGER  REFERENCES ci_jobs (id) ON DELETE SET NULL,
    CHECK (status IN ('created', 'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending',
        'running', 'success', 'failed', 'canceling', 'canceled', 'skipped', 'manual', 'scheduled'))
);
INSERT INTO ci_pipelines_rebuilt (id, project_id, iid, sha, ref, status, source, user_id, merge_request_id, created_at, updated_at, started_at, finished_at, name, tag, upstream_pipeline_id, source_job_id)
SELECT id, project_id, iid, sha, ref, status, source, user_id, merge_request_id, created_at, updated_at, started_at, finished_at, name, tag, upstream_pipeline_id, source_job_id FROM ci_pipelines;
DELETE FROM sqlite_sequence WHERE name = 'ci_pipelines_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'ci_pipelines_rebuilt', seq FROM sqlite_sequence WHERE name = 'ci_pipelines';
CREATE TABLE ci_jobs_rebuilt (
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
    type           TEXT     NOT NULL DEFAULT 'Ci::Build' CHECK (type IN ('Ci::Build', 'Ci::Bridge')),
    retried        BOOLEAN  NOT NULL DEFAULT 0,
    user_id        INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    CHECK (status IN ('created', 'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending',
        'running', 'success', 'failed', 'canceling', 'canceled', 'skipped', 'manual', 'scheduled'))
);
INSERT INTO ci_jobs_rebuilt (id, pipeline_id, project_id, name, stage, status, ref, allow_failure, failure_reason, duration, created_at, started_at, finished_at, type, retried, user_id)
SELECT id, pipeline_id, project_id, name, stage, status, ref, allow_failure, failure_reason, duration, created_at, started_at, finished_at, type, retried, user_id FROM ci_jobs;
DELETE FROM sqlite_sequence WHERE name = 'ci_jobs_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'ci_jobs_rebuilt', seq FROM sqlite_sequence WHERE name = 'ci_jobs';
DROP TABLE ci_pipelines;
DROP TABLE ci_jobs;
ALTER TABLE ci_pipelines_rebuilt RENAME TO ci_pipelines;
ALTER TABLE ci_jobs_rebuilt RENAME TO ci_jobs;
CREATE UNIQUE INDEX index_ci_pipelines_on_project_id_and_iid ON ci_pipelines (project_id, iid);
CREATE INDEX index_ci_pipelines_on_project_id_and_ref ON ci_pipelines (project_id, ref, id);
CREATE INDEX index_ci_pipelines_on_merge_request_id ON ci_pipelines (merge_request_id);
CREATE INDEX index_ci_pipelines_on_upstream_pipeline_id ON ci_pipelines (upstream_pipeline_id, id);
CREATE INDEX index_ci_pipelines_on_source_job_id ON ci_pipelines (source_job_id);
CREATE INDEX index_ci_jobs_on_pipeline_id ON ci_jobs (pipeline_id, id);
CREATE INDEX index_ci_jobs_on_project_id ON ci_jobs (project_id);
COMMIT;
PRAGMA foreign_keys = ON;

-- +goose Down
PRAGMA foreign_keys = OFF;
BEGIN;
UPDATE ci_pipelines SET status = 'running' WHERE status = 'waiting_for_callback';
UPDATE ci_pipelines SET status = 'canceled' WHERE status = 'canceling';
UPDATE ci_jobs SET status = 'running' WHERE status = 'waiting_for_callback';
UPDATE ci_jobs SET status = 'canceled' WHERE status = 'canceling';
CREATE TABLE ci_pipelines_rebuilt (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id           INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    iid                  INTEGER  NOT NULL CHECK (iid > 0),
    sha                  TEXT     NOT NULL,
    ref                  TEXT     NOT NULL,
    status               TEXT     NOT NULL DEFAULT 'created',
    source               TEXT     NOT NULL DEFAULT 'push',
    user_id              INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    merge_request_id     INTEGER  REFERENCES merge_requests (id) ON DELETE SET NULL,
    created_at           DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at           DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    started_at           DATETIME,
    finished_at          DATETIME,
    name                 TEXT     NOT NULL DEFAULT '',
    tag                  BOOLEAN  NOT NULL DEFAULT 0,
    upstream_pipeline_id INTEGER  REFERENCES ci_pipelines (id) ON DELETE SET NULL,
    source_job_id        INTEGER  REFERENCES ci_jobs (id) ON DELETE SET NULL,
    CHECK (status IN ('created', 'waiting_for_resource', 'preparing', 'pending', 'running',
        'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'))
);
INSERT INTO ci_pipelines_rebuilt (id, project_id, iid, sha, ref, status, source, user_id, merge_request_id, created_at, updated_at, started_at, finished_at, name, tag, upstream_pipeline_id, source_job_id)
SELECT id, project_id, iid, sha, ref, status, source, user_id, merge_request_id, created_at, updated_at, started_at, finished_at, name, tag, upstream_pipeline_id, source_job_id FROM ci_pipelines;
DELETE FROM sqlite_sequence WHERE name = 'ci_pipelines_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'ci_pipelines_rebuilt', seq FROM sqlite_sequence WHERE name = 'ci_pipelines';
CREATE TABLE ci_jobs_rebuilt (
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
    type           TEXT     NOT NULL DEFAULT 'Ci::Build' CHECK (type IN ('Ci::Build', 'Ci::Bridge')),
    retried        BOOLEAN  NOT NULL DEFAULT 0,
    user_id        INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    CHECK (status IN ('created', 'waiting_for_resource', 'preparing', 'pending', 'running',
        'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'))
);
INSERT INTO ci_jobs_rebuilt (id, pipeline_id, project_id, name, stage, status, ref, allow_failure, failure_reason, duration, created_at, started_at, finished_at, type, retried, user_id)
SELECT id, pipeline_id, project_id, name, stage, status, ref, allow_failure, failure_reason, duration, created_at, started_at, finished_at, type, retried, user_id FROM ci_jobs;
DELETE FROM sqlite_sequence WHERE name = 'ci_jobs_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'ci_jobs_rebuilt', seq FROM sqlite_sequence WHERE name = 'ci_jobs';
DROP TABLE ci_pipelines;
DROP TABLE ci_jobs;
ALTER TABLE ci_pipelines_rebuilt RENAME TO ci_pipelines;
ALTER TABLE ci_jobs_rebuilt RENAME TO ci_jobs;
CREATE UNIQUE INDEX index_ci_pipelines_on_project_id_and_iid ON ci_pipelines (project_id, iid);
CREATE INDEX index_ci_pipelines_on_project_id_and_ref ON ci_pipelines (project_id, ref, id);
CREATE INDEX index_ci_pipelines_on_merge_request_id ON ci_pipelines (merge_request_id);
CREATE INDEX index_ci_pipelines_on_upstream_pipeline_id ON ci_pipelines (upstream_pipeline_id, id);
CREATE INDEX index_ci_pipelines_on_source_job_id ON ci_pipelines (source_job_id);
CREATE INDEX index_ci_jobs_on_pipeline_id ON ci_jobs (pipeline_id, id);
CREATE INDEX index_ci_jobs_on_project_id ON ci_jobs (project_id);
COMMIT;
PRAGMA foreign_keys = ON;
