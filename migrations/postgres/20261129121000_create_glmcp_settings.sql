-- +goose Up
-- Instance-wide settings that every instance sharing the database must
-- agree on, such as the generated instance secret when GLMCP_SECRET is unset.
CREATE TABLE glmcp_settings (
    key        text        PRIMARY KEY,
    value      text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE glmcp_settings;
