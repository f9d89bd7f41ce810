-- +goose Up
-- Security scan profiles (EE, code_security toolset: attach_scan_profile).
-- A profile belongs to a root group and configures one scan type; the
-- GitLab-recommended default profile of a scan type is created in a root
-- group the first time it is attached there, so at most one per group and
-- type.
CREATE TABLE security_scan_profiles (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace_id       INTEGER  NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
    scan_type          TEXT     NOT NULL CHECK (scan_type IN ('sast', 'secret_detection',
                       'dependency_scanning', 'container_scanning', 'dast', 'api_fuzzing', 'coverage_fuzzing')),
    name               TEXT     NOT NULL CHECK (name <> ''),
    description        TEXT     NOT NULL DEFAULT '',
    gitlab_recommended BOOLEAN  NOT NULL DEFAULT 0,
    created_at         DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at         DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX index_security_scan_profiles_on_namespace_id ON security_scan_profiles (namespace_id);
CREATE UNIQUE INDEX index_security_scan_profiles_recommended ON security_scan_profiles (namespace_id, scan_type)
    WHERE gitlab_recommended;

-- The projects a profile is attached to.
CREATE TABLE security_scan_profiles_projects (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    security_scan_profile_id INTEGER  NOT NULL REFERENCES security_scan_profiles (id) ON DELETE CASCADE,
    project_id               INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    created_at               DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_security_scan_profiles_projects_on_project_and_profile
    ON security_scan_profiles_projects (project_id, security_scan_profile_id);
CREATE INDEX index_security_scan_profiles_projects_on_profile
    ON security_scan_profiles_projects (security_scan_profile_id);

-- +goose Down
DROP TABLE security_scan_profiles_projects;
DROP TABLE security_scan_profiles;
