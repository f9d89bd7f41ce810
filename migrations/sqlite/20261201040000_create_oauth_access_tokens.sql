-- +goose Up
-- GitLab's (Doorkeeper's) OAuth access tokens; see the PostgreSQL
-- migration of the same version.
CREATE TABLE oauth_access_tokens (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    resource_owner_id      INTEGER REFERENCES users (id) ON DELETE CASCADE,
    application_id         INTEGER,
    token                  TEXT     NOT NULL CHECK (token <> ''),
    refresh_token          TEXT,
    expires_in             INTEGER           DEFAULT 7200 CHECK (expires_in IS NULL OR expires_in > 0),
    revoked_at             DATETIME,
    created_at             DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    scopes                 TEXT,
    previous_refresh_token TEXT     NOT NULL DEFAULT '',
    organization_id        INTEGER  NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX index_oauth_access_tokens_on_token ON oauth_access_tokens (token);
CREATE UNIQUE INDEX index_oauth_access_tokens_on_refresh_token ON oauth_access_tokens (refresh_token);
CREATE INDEX index_oauth_access_tokens_on_resource_owner_id ON oauth_access_tokens (resource_owner_id);
CREATE INDEX index_oauth_access_tokens_on_application_id ON oauth_access_tokens (application_id);

-- +goose Down
DROP TABLE oauth_access_tokens;
