-- +goose Up
-- GitLab's pipeline and job statuses include waiting_for_callback (a job
-- waiting for an external system) and canceling (a cancel under way); the
-- first CHECK left them out.
ALTER TABLE ci_pipelines DROP CONSTRAINT ci_pipelines_status_known;
ALTER TABLE ci_pipelines ADD CONSTRAINT ci_pipelines_status_known CHECK (status IN ('created',
    'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running', 'success',
    'failed', 'canceling', 'canceled', 'skipped', 'manual', 'scheduled'));
ALTER TABLE ci_jobs DROP CONSTRAINT ci_jobs_status_known;
ALTER TABLE ci_jobs ADD CONSTRAINT ci_jobs_status_known CHECK (status IN ('created',
    'waiting_for_resource', 'preparing', 'waiting_for_callback', 'pending', 'running', 'success',
    'failed', 'canceling', 'canceled', 'skipped', 'manual', 'scheduled'));

-- +goose Down
UPDATE ci_pipelines SET status = 'running' WHERE status = 'waiting_for_callback';
UPDATE ci_pipelines SET status = 'canceled' WHERE status = 'canceling';
UPDATE ci_jobs SET status = 'running' WHERE status = 'waiting_for_callback';
UPDATE ci_jobs SET status = 'canceled' WHERE status = 'canceling';
ALTER TABLE ci_pipelines DROP CONSTRAINT ci_pipelines_status_known;
ALTER TABLE ci_pipelines ADD CONSTRAINT ci_pipelines_status_known CHECK (status IN ('created',
    'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled',
    'skipped', 'manual', 'scheduled'));
ALTER TABLE ci_jobs DROP CONSTRAINT ci_jobs_status_known;
ALTER TABLE ci_jobs ADD CONSTRAINT ci_jobs_status_known CHECK (status IN ('created',
    'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled',
    'skipped', 'manual', 'scheduled'));
