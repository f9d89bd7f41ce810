-- +goose Up
-- A user's own MCP request limit (glmcp users set-rate-limit USER N/WINDOW):
-- N requests per WINDOW seconds instead of the server's GLMCP_RATE_LIMIT;
-- 0 and 0: the server's. It is read with the user's identity, so the
-- identity change triggers (an UPDATE of users) tell every instance at once.
ALTER TABLE users ADD COLUMN mcp_rate_limit_requests INTEGER NOT NULL DEFAULT 0
    CHECK (mcp_rate_limit_requests BETWEEN 0 AND 1000000);
ALTER TABLE users ADD COLUMN mcp_rate_limit_period_seconds INTEGER NOT NULL DEFAULT 0
    CHECK (mcp_rate_limit_period_seconds BETWEEN 0 AND 86400);

-- +goose Down
ALTER TABLE users DROP COLUMN mcp_rate_limit_period_seconds;
ALTER TABLE users DROP COLUMN mcp_rate_limit_requests;
