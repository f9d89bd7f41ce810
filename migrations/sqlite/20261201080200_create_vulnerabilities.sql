-- +goose Up
CREATE TABLE vulnerabilities (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id       INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    author_id        INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    title            TEXT     NOT NULL CHECK (title <> ''),
    description      TEXT     NOT NULL DEFAULT '',
    solution         TEXT     NOT NULL DEFAULT '',
    state            TEXT     NOT NULL DEFAULT 'detected'
                     CHECK (state IN ('detected', 'confirmed', 'dismissed', 'resolved')),
    severity         TEXT     NOT NULL
                     CHECK (severity IN ('info', 'unknown', 'low', 'medium', 'high', 'critical')),
    report_type      TEXT     NOT NULL CHECK (report_type IN ('sast', 'dast', 'dependency_scanning',
                     'container_scanning', 'secret_detection', 'coverage_fuzzing', 'api_fuzzing',
                     'cluster_image_scanning', 'generic')),
    scanner_name     TEXT     NOT NULL DEFAULT '',
    identifiers      TEXT     NOT NULL DEFAULT '[]',
    location         TEXT     NOT NULL DEFAULT '{}',
    dismissal_reason TEXT     CHECK (dismissal_reason IN ('acceptable_risk', 'false_positive',
                     'mitigating_control', 'used_in_tests', 'not_applicable')),
    confirmed_by_id  INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    confirmed_at     DATETIME,
    dismissed_by_id  INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    dismissed_at     DATETIME,
    resolved_by_id   INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    resolved_at      DATETIME,
    issue_id         INTEGER  REFERENCES issues (id) ON DELETE SET NULL,
    created_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX index_vulnerabilities_on_project_id_and_id ON vulnerabilities (project_id, id);

CREATE TABLE vulnerability_events (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    vulnerability_id INTEGER  NOT NULL REFERENCES vulnerabilities (id) ON DELETE CASCADE,
    author_id        INTEGER  REFERENCES users (id) ON DELETE SET NULL,
    kind             TEXT     NOT NULL CHECK (kind IN ('state', 'severity')),
    from_value       TEXT     NOT NULL,
    to_value         TEXT     NOT NULL,
    comment          TEXT     NOT NULL DEFAULT '',
    dismissal_reason TEXT,
    created_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX index_vulnerability_events_on_vulnerability_id ON vulnerability_events (vulnerability_id, id);

-- +goose Down
DROP TABLE vulnerability_events;
DROP TABLE vulnerabilities;
