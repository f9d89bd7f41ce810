-- +goose Up
-- Archived projects are read-only and left out of listings unless asked
-- for (list_projects' archived: only | include | exclude).
ALTER TABLE projects ADD COLUMN archived boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE projects DROP COLUMN archived;
