-- +goose Up
-- Instance-wide settings, such as the generated instance secret when
-- GLMCP_SECRET is unset.
CREATE TABLE glmcp_settings (
    key        TEXT     PRIMARY KEY,
    value      TEXT     NOT NULL,
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- +goose Down
DROP TABLE glmcp_settings;
