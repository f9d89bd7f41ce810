-- +goose Up
-- Identity changes on the embedded store (issue #12): the same changes the
-- PostgreSQL migration of this version announces with NOTIFY bump one
-- counter here, which the identity cache reads before each use. Triggers
-- fire for every writer of the file: this server, the CLI in another
-- process, the sqlite3 shell.
CREATE TABLE identity_versions (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO identity_versions (id, version) VALUES (1, 0);

-- +goose StatementBegin
CREATE TRIGGER personal_access_tokens_identity_changed
    AFTER UPDATE OF user_id, token_digest, scopes, expires_at, revoked ON personal_access_tokens
BEGIN
    UPDATE identity_versions SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER personal_access_tokens_identity_deleted AFTER DELETE ON personal_access_tokens
BEGIN
    UPDATE identity_versions SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER oauth_access_tokens_identity_changed AFTER UPDATE ON oauth_access_tokens
BEGIN
    UPDATE identity_versions SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER oauth_access_tokens_identity_deleted AFTER DELETE ON oauth_access_tokens
BEGIN
    UPDATE identity_versions SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_identity_changed AFTER UPDATE ON users
BEGIN
    UPDATE identity_versions SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_identity_deleted AFTER DELETE ON users
BEGIN
    UPDATE identity_versions SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER users_identity_deleted;
DROP TRIGGER users_identity_changed;
DROP TRIGGER oauth_access_tokens_identity_deleted;
DROP TRIGGER oauth_access_tokens_identity_changed;
DROP TRIGGER personal_access_tokens_identity_deleted;
DROP TRIGGER personal_access_tokens_identity_changed;
DROP TABLE identity_versions;
