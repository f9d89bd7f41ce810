-- +goose Up
ALTER TABLE ci_pipelines ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE ci_pipelines ADD COLUMN tag BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE ci_pipelines ADD COLUMN upstream_pipeline_id INTEGER REFERENCES ci_pipelines (id) ON DELETE SET NULL;
ALTER TABLE ci_pipelines ADD COLUMN source_job_id INTEGER REFERENCES ci_jobs (id) ON DELETE SET NULL;
CREATE INDEX index_ci_pipelines_on_upstream_pipeline_id ON ci_pipelines (upstream_pipeline_id, id);
CREATE INDEX index_ci_pipelines_on_source_job_id ON ci_pipelines (source_job_id);

ALTER TABLE ci_jobs ADD COLUMN type TEXT NOT NULL DEFAULT 'Ci::Build'
    CHECK (type IN ('Ci::Build', 'Ci::Bridge'));
ALTER TABLE ci_jobs ADD COLUMN retried BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE ci_jobs ADD COLUMN user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;

CREATE TABLE ci_pipeline_variables (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    pipeline_id   INTEGER NOT NULL REFERENCES ci_pipelines (id) ON DELETE CASCADE,
    key           TEXT    NOT NULL CHECK (key <> ''),
    value         TEXT    NOT NULL DEFAULT '',
    variable_type TEXT    NOT NULL DEFAULT 'env_var' CHECK (variable_type IN ('env_var', 'file'))
);
CREATE UNIQUE INDEX index_ci_pipeline_variables_on_pipeline_id_and_key ON ci_pipeline_variables (pipeline_id, key);

CREATE TABLE ci_job_artifacts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    job_id      INTEGER  NOT NULL REFERENCES ci_jobs (id) ON DELETE CASCADE,
    file_type   TEXT     NOT NULL CHECK (file_type <> ''),
    file_format TEXT     NOT NULL DEFAULT 'raw' CHECK (file_format IN ('raw', 'zip', 'gzip')),
    file_name   TEXT     NOT NULL CHECK (file_name <> ''),
    size        INTEGER  NOT NULL DEFAULT 0 CHECK (size >= 0),
    expire_at   DATETIME,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_ci_job_artifacts_on_job_id_and_file_type ON ci_job_artifacts (job_id, file_type);
CREATE INDEX index_ci_job_artifacts_on_project_id ON ci_job_artifacts (project_id);

CREATE TABLE ci_job_artifact_chunks (
    artifact_id INTEGER NOT NULL REFERENCES ci_job_artifacts (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL CHECK (chunk_index >= 0),
    data        BLOB    NOT NULL,
    PRIMARY KEY (artifact_id, chunk_index)
);

-- +goose Down
DROP TABLE ci_job_artifact_chunks;
DROP TABLE ci_job_artifacts;
DROP TABLE ci_pipeline_variables;
ALTER TABLE ci_jobs DROP COLUMN user_id;
ALTER TABLE ci_jobs DROP COLUMN retried;
ALTER TABLE ci_jobs DROP COLUMN type;
DROP INDEX index_ci_pipelines_on_source_job_id;
DROP INDEX index_ci_pipelines_on_upstream_pipeline_id;
ALTER TABLE ci_pipelines DROP COLUMN source_job_id;
ALTER TABLE ci_pipelines DROP COLUMN upstream_pipeline_id;
ALTER TABLE ci_pipelines DROP COLUMN tag;
ALTER TABLE ci_pipelines DROP COLUMN name;
