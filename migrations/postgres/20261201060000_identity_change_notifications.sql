-- +goose Up
-- Identity changes, announced to every instance (issue #12). Each
-- instance caches what a credential resolves to (token row and user) and
-- LISTENs on glmcp_identity; these triggers make every writer (glmcp, the
-- CLI, another instance, plain SQL) announce a change that could alter an
-- identity, once per row, in the writer's transaction: PostgreSQL delivers
-- the notification when (and only if) it commits. Payloads are compact:
-- p:<id> a personal access token, o:<id> an OAuth access token, u:<id> a
-- user (all of the user's credentials), * everything (TRUNCATE).
-- +goose StatementBegin
CREATE FUNCTION glmcp_identity_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('glmcp_identity', '*');
    ELSE
        PERFORM pg_notify('glmcp_identity', TG_ARGV[0] || ':' || OLD.id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- A new row cannot be cached yet (unknown credentials are not cached), so
-- only UPDATE and DELETE matter. A token's last_used_at (written at most
-- every 10 minutes per token) and updated_at change nothing an identity
-- holds.
CREATE TRIGGER personal_access_tokens_identity_changed
    AFTER UPDATE ON personal_access_tokens FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_used_at' - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at' - 'updated_at'))
    EXECUTE FUNCTION glmcp_identity_changed('p');
CREATE TRIGGER personal_access_tokens_identity_deleted
    AFTER DELETE ON personal_access_tokens FOR EACH ROW EXECUTE FUNCTION glmcp_identity_changed('p');
CREATE TRIGGER personal_access_tokens_identity_truncated
    AFTER TRUNCATE ON personal_access_tokens FOR EACH STATEMENT EXECUTE FUNCTION glmcp_identity_changed('*');

CREATE TRIGGER oauth_access_tokens_identity_changed
    AFTER UPDATE ON oauth_access_tokens FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION glmcp_identity_changed('o');
CREATE TRIGGER oauth_access_tokens_identity_deleted
    AFTER DELETE ON oauth_access_tokens FOR EACH ROW EXECUTE FUNCTION glmcp_identity_changed('o');
CREATE TRIGGER oauth_access_tokens_identity_truncated
    AFTER TRUNCATE ON oauth_access_tokens FOR EACH STATEMENT EXECUTE FUNCTION glmcp_identity_changed('*');

-- Users: state (block, deactivate), admin, the EE seat, names.
CREATE TRIGGER users_identity_changed
    AFTER UPDATE ON users FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at'))
    EXECUTE FUNCTION glmcp_identity_changed('u');
CREATE TRIGGER users_identity_deleted
    AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION glmcp_identity_changed('u');
CREATE TRIGGER users_identity_truncated
    AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION glmcp_identity_changed('*');

-- +goose Down
DROP TRIGGER users_identity_truncated ON users;
DROP TRIGGER users_identity_deleted ON users;
DROP TRIGGER users_identity_changed ON users;
DROP TRIGGER oauth_access_tokens_identity_truncated ON oauth_access_tokens;
DROP TRIGGER oauth_access_tokens_identity_deleted ON oauth_access_tokens;
DROP TRIGGER oauth_access_tokens_identity_changed ON oauth_access_tokens;
DROP TRIGGER personal_access_tokens_identity_truncated ON personal_access_tokens;
DROP TRIGGER personal_access_tokens_identity_deleted ON personal_access_tokens;
DROP TRIGGER personal_access_tokens_identity_changed ON personal_access_tokens;
DROP FUNCTION glmcp_identity_changed();
