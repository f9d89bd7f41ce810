-- +goose Up
-- A user's own MCP request limit as a list of windows (glmcp users
-- set-rate-limit USER 600/60s,5000/1h), every one enforced: "N/Ss" joined
-- by commas, '' for the server's limit. mcp_rate_limit_requests and
-- mcp_rate_limit_period_seconds keep the list's first window.
ALTER TABLE users ADD COLUMN mcp_rate_limit_windows VARCHAR(255) NOT NULL DEFAULT '';
UPDATE users SET mcp_rate_limit_windows = CAST(mcp_rate_limit_requests AS VARCHAR(16)) || '/' || CAST(mcp_rate_limit_period_seconds AS VARCHAR(16)) || 's'
    WHERE mcp_rate_limit_requests > 0 AND mcp_rate_limit_period_seconds > 0;

-- +goose Down
ALTER TABLE users DROP COLUMN mcp_rate_limit_windows;
