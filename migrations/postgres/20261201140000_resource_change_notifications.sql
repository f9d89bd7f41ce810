-- +goose Up
-- Resource changes, announced to every instance (issue #14): a listen
-- stream subscribed to an issue, merge request, project or job is told
-- when it changes. Every writer (glmcp, the CLI, another instance, plain
-- SQL) fires these triggers in its transaction; PostgreSQL delivers the
-- NOTIFY on glmcp_resources when (and only if) it commits. The payload is
-- the resource key: p:<project id>, i:<project id>:<iid>,
-- m:<project id>:<iid>, j:<project id>:<job id>. Ref moves (r:<project
-- id>:<ref>) are announced by glmcp itself after it moves a ref.
-- +goose StatementBegin
CREATE FUNCTION glmcp_resource_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r jsonb;
BEGIN
    IF TG_OP = 'DELETE' THEN
        r := to_jsonb(OLD);
    ELSE
        r := to_jsonb(NEW);
    END IF;
    IF TG_NARGS = 1 THEN
        PERFORM pg_notify('glmcp_resources', TG_ARGV[0] || ':' || (r->>'id'));
    ELSE
        PERFORM pg_notify('glmcp_resources', TG_ARGV[0] || ':' || (r->>'project_id') || ':' || (r->>TG_ARGV[1]));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- A new row has no subscriber yet (only readable resources are subscribed
-- to), so UPDATE and DELETE matter.
CREATE TRIGGER projects_resource_changed AFTER UPDATE ON projects FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at'))
    EXECUTE FUNCTION glmcp_resource_changed('p');
CREATE TRIGGER projects_resource_deleted AFTER DELETE ON projects FOR EACH ROW
    EXECUTE FUNCTION glmcp_resource_changed('p');
CREATE TRIGGER issues_resource_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('i', 'iid');
CREATE TRIGGER issues_resource_deleted AFTER DELETE ON issues FOR EACH ROW
    EXECUTE FUNCTION glmcp_resource_changed('i', 'iid');
CREATE TRIGGER merge_requests_resource_changed AFTER UPDATE ON merge_requests FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('m', 'iid');
CREATE TRIGGER merge_requests_resource_deleted AFTER DELETE ON merge_requests FOR EACH ROW
    EXECUTE FUNCTION glmcp_resource_changed('m', 'iid');
CREATE TRIGGER ci_jobs_resource_changed AFTER UPDATE ON ci_jobs FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_resource_changed('j', 'id');
CREATE TRIGGER ci_jobs_resource_deleted AFTER DELETE ON ci_jobs FOR EACH ROW
    EXECUTE FUNCTION glmcp_resource_changed('j', 'id');

-- +goose Down
DROP TRIGGER ci_jobs_resource_deleted ON ci_jobs;
DROP TRIGGER ci_jobs_resource_changed ON ci_jobs;
DROP TRIGGER merge_requests_resource_deleted ON merge_requests;
DROP TRIGGER merge_requests_resource_changed ON merge_requests;
DROP TRIGGER issues_resource_deleted ON issues;
DROP TRIGGER issues_resource_changed ON issues;
DROP TRIGGER projects_resource_deleted ON projects;
DROP TRIGGER projects_resource_changed ON projects;
DROP FUNCTION glmcp_resource_changed();
