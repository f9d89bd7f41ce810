-- +goose Up
CREATE TABLE personal_access_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT     NOT NULL,
    token_digest TEXT     NOT NULL CHECK (token_digest <> ''),
    scopes       TEXT     NOT NULL DEFAULT '[]',
    expires_at   DATE,
    revoked      BOOLEAN  NOT NULL DEFAULT 0,
    last_used_at DATETIME,
    created_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_personal_access_tokens_on_token_digest ON personal_access_tokens (token_digest);
CREATE INDEX index_personal_access_tokens_on_user_id ON personal_access_tokens (user_id);

-- +goose Down
DROP TABLE personal_access_tokens;
