-- +goose Up
-- Issue view changes, announced to every instance (issue #12). Each
-- instance keeps what get_issue read (the project with the caller's role,
-- the issue, its author and assignees, its note counts) in memory and
-- LISTENs on glmcp_views; these triggers make every writer (glmcp, the
-- CLI, another instance, plain SQL) announce a change to any row such a
-- view is read from, in the writer's transaction: PostgreSQL delivers the
-- notification when (and only if) it commits. Payloads are compact:
-- i:<issue id> the issue, its assignees or its notes; p:<project id> the
-- project or its direct members; u:<user id> a user (as caller, author or
-- assignee) or the user's group memberships; * everything (a group moved
-- or went away, a TRUNCATE, an id that could not be read).
--
-- TG_ARGV: the payload's kind, then the column the id is read from. An
-- UPDATE that moves a row (another issue, project or user) announces both
-- the old and the new id.
-- +goose StatementBegin
CREATE FUNCTION glmcp_view_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    old_id text;
    new_id text;
BEGIN
    IF TG_OP = 'TRUNCATE' OR TG_ARGV[0] = '*' THEN
        PERFORM pg_notify('glmcp_views', '*');
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        old_id := to_jsonb(OLD) ->> TG_ARGV[1];
        PERFORM pg_notify('glmcp_views', COALESCE(TG_ARGV[0] || ':' || old_id, '*'));
    END IF;
    IF TG_OP <> 'DELETE' THEN
        new_id := to_jsonb(NEW) ->> TG_ARGV[1];
        IF TG_OP = 'INSERT' OR new_id IS DISTINCT FROM old_id THEN
            PERFORM pg_notify('glmcp_views', COALESCE(TG_ARGV[0] || ':' || new_id, '*'));
        END IF;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Issues: only a view of an existing issue is kept, so a new issue
-- changes none (its iid was not found before) and UPDATE and DELETE
-- matter.
CREATE TRIGGER issues_view_changed AFTER UPDATE ON issues FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_view_changed('i', 'id');
CREATE TRIGGER issues_view_deleted AFTER DELETE ON issues FOR EACH ROW
    EXECUTE FUNCTION glmcp_view_changed('i', 'id');
CREATE TRIGGER issues_view_truncated AFTER TRUNCATE ON issues FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');

-- Assignees: every row added or removed changes the issue's view.
CREATE TRIGGER issue_assignees_view_changed AFTER INSERT OR UPDATE OR DELETE ON issue_assignees FOR EACH ROW
    EXECUTE FUNCTION glmcp_view_changed('i', 'issue_id');
CREATE TRIGGER issue_assignees_view_truncated AFTER TRUNCATE ON issue_assignees FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');

-- Notes: a view holds the issue's counts of user notes with and without
-- internal ones, so what moves a count matters: a note on an issue added
-- or removed, or its noteable, system or internal changed (an edit of the
-- body changes no count).
CREATE TRIGGER notes_view_inserted AFTER INSERT ON notes FOR EACH ROW
    WHEN (NEW.noteable_type = 'Issue')
    EXECUTE FUNCTION glmcp_view_changed('i', 'noteable_id');
CREATE TRIGGER notes_view_changed AFTER UPDATE ON notes FOR EACH ROW
    WHEN ((OLD.noteable_type = 'Issue' OR NEW.noteable_type = 'Issue')
        AND (OLD.noteable_type, OLD.noteable_id, OLD.system, OLD.internal)
            IS DISTINCT FROM (NEW.noteable_type, NEW.noteable_id, NEW.system, NEW.internal))
    EXECUTE FUNCTION glmcp_view_changed('i', 'noteable_id');
CREATE TRIGGER notes_view_deleted AFTER DELETE ON notes FOR EACH ROW
    WHEN (OLD.noteable_type = 'Issue')
    EXECUTE FUNCTION glmcp_view_changed('i', 'noteable_id');
CREATE TRIGGER notes_view_truncated AFTER TRUNCATE ON notes FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');

-- Projects: every field of the project is shown or checked (visibility,
-- path), and the path decides which groups' members inherit a role.
CREATE TRIGGER projects_view_changed AFTER UPDATE ON projects FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at'))
    EXECUTE FUNCTION glmcp_view_changed('p', 'id');
CREATE TRIGGER projects_view_deleted AFTER DELETE ON projects FOR EACH ROW
    EXECUTE FUNCTION glmcp_view_changed('p', 'id');
CREATE TRIGGER projects_view_truncated AFTER TRUNCATE ON projects FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');

-- Roles (the project_authorizations view): a direct membership changes
-- the project's views; a group membership changes its user's roles in
-- every project below the group; a group renamed, moved or removed
-- changes who inherits what anywhere. A group created has no members yet.
CREATE TRIGGER project_members_view_changed AFTER INSERT OR UPDATE OR DELETE ON project_members FOR EACH ROW
    EXECUTE FUNCTION glmcp_view_changed('p', 'project_id');
CREATE TRIGGER project_members_view_truncated AFTER TRUNCATE ON project_members FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');
CREATE TRIGGER namespace_members_view_changed AFTER INSERT OR UPDATE OR DELETE ON namespace_members FOR EACH ROW
    EXECUTE FUNCTION glmcp_view_changed('u', 'user_id');
CREATE TRIGGER namespace_members_view_truncated AFTER TRUNCATE ON namespace_members FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');
CREATE TRIGGER namespaces_view_changed AFTER UPDATE ON namespaces FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at'))
    EXECUTE FUNCTION glmcp_view_changed('*');
CREATE TRIGGER namespaces_view_deleted AFTER DELETE OR TRUNCATE ON namespaces FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');

-- Users: the caller (state, admin), the author and the assignees are all
-- shown or checked.
CREATE TRIGGER users_view_changed AFTER UPDATE ON users FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at'))
    EXECUTE FUNCTION glmcp_view_changed('u', 'id');
CREATE TRIGGER users_view_deleted AFTER DELETE ON users FOR EACH ROW
    EXECUTE FUNCTION glmcp_view_changed('u', 'id');
CREATE TRIGGER users_view_truncated AFTER TRUNCATE ON users FOR EACH STATEMENT
    EXECUTE FUNCTION glmcp_view_changed('*');

-- +goose Down
DROP TRIGGER users_view_truncated ON users;
DROP TRIGGER users_view_deleted ON users;
DROP TRIGGER users_view_changed ON users;
DROP TRIGGER namespaces_view_deleted ON namespaces;
DROP TRIGGER namespaces_view_changed ON namespaces;
DROP TRIGGER namespace_members_view_truncated ON namespace_members;
DROP TRIGGER namespace_members_view_changed ON namespace_members;
DROP TRIGGER project_members_view_truncated ON project_members;
DROP TRIGGER project_members_view_changed ON project_members;
DROP TRIGGER projects_view_truncated ON projects;
DROP TRIGGER projects_view_deleted ON projects;
DROP TRIGGER projects_view_changed ON projects;
DROP TRIGGER notes_view_truncated ON notes;
DROP TRIGGER notes_view_deleted ON notes;
DROP TRIGGER notes_view_changed ON notes;
DROP TRIGGER notes_view_inserted ON notes;
DROP TRIGGER issue_assignees_view_truncated ON issue_assignees;
DROP TRIGGER issue_assignees_view_changed ON issue_assignees;
DROP TRIGGER issues_view_truncated ON issues;
DROP TRIGGER issues_view_deleted ON issues;
DROP TRIGGER issues_view_changed ON issues;
DROP FUNCTION glmcp_view_changed();
