-- +goose Up
-- Issue view changes on the embedded store (issue #12): the changes the
-- PostgreSQL triggers of 20261201180000 announce on glmcp_views are marked
-- here, in the writer's transaction, whoever writes the file (this server,
-- the CLI in another process, the sqlite3 shell). The issue view cache
-- reads the marks before each use (services/store/issue_view_cache.go).
--
-- Row -1 is a sequence: every change adds one to it and copies the new
-- value into the row of what changed: the project's row (id = project id)
-- for an issue, its assignees, its notes, the project or its direct
-- members; row 0 for what may change views of any project (a user as
-- caller, author or assignee; a group membership; a group changed or
-- deleted; an issue that could not be found). A view read when the
-- sequence was S is still true while its project's row and row 0 are both
-- <= S: one statement reading two rows by primary key.
CREATE TABLE issue_view_versions (
    id      INTEGER PRIMARY KEY,
    version INTEGER NOT NULL
);
INSERT INTO issue_view_versions (id, version) VALUES (-1, 0), (0, 0);

-- Issues: only a view of an existing issue is kept, so a new issue
-- changes none; an UPDATE that moves the issue marks both projects.
-- +goose StatementBegin
CREATE TRIGGER issues_view_changed AFTER UPDATE ON issues
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT OLD.project_id, version FROM issue_view_versions WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT NEW.project_id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER issues_view_deleted AFTER DELETE ON issues
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT OLD.project_id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd

-- Assignees: every row added, changed or removed changes the issue's view.
-- +goose StatementBegin
CREATE TRIGGER issue_assignees_view_inserted AFTER INSERT ON issue_assignees
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = NEW.issue_id), 0), version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER issue_assignees_view_changed AFTER UPDATE ON issue_assignees
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = OLD.issue_id), 0), version FROM issue_view_versions WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = NEW.issue_id), 0), version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER issue_assignees_view_deleted AFTER DELETE ON issue_assignees
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = OLD.issue_id), 0), version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd

-- Notes: what moves one of the issue's note counts (a note on an issue
-- added or removed, or its noteable, system or internal changed; an edit
-- of the body changes no count).
-- +goose StatementBegin
CREATE TRIGGER notes_view_inserted AFTER INSERT ON notes
    WHEN NEW.noteable_type = 'Issue'
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = NEW.noteable_id), 0), version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_view_changed AFTER UPDATE ON notes
    WHEN (OLD.noteable_type = 'Issue' OR NEW.noteable_type = 'Issue')
        AND (OLD.noteable_type IS NOT NEW.noteable_type OR OLD.noteable_id IS NOT NEW.noteable_id
            OR OLD.system IS NOT NEW.system OR OLD.internal IS NOT NEW.internal)
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = OLD.noteable_id), 0), version FROM issue_view_versions WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = NEW.noteable_id), 0), version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER notes_view_deleted AFTER DELETE ON notes
    WHEN OLD.noteable_type = 'Issue'
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT COALESCE((SELECT project_id FROM issues WHERE id = OLD.noteable_id), 0), version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd

-- Projects (every field is shown or checked) and their direct members.
-- +goose StatementBegin
CREATE TRIGGER projects_view_changed AFTER UPDATE ON projects
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT OLD.id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER projects_view_deleted AFTER DELETE ON projects
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT OLD.id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER project_members_view_inserted AFTER INSERT ON project_members
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT NEW.project_id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER project_members_view_changed AFTER UPDATE ON project_members
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT OLD.project_id, version FROM issue_view_versions WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT NEW.project_id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER project_members_view_deleted AFTER DELETE ON project_members
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT OLD.project_id, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd

-- What may change views of any project: group memberships (inherited by
-- every project below the group), groups changed or removed (a group
-- created has no members yet), users (as caller, author or assignee).
-- +goose StatementBegin
CREATE TRIGGER namespace_members_view_inserted AFTER INSERT ON namespace_members
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER namespace_members_view_changed AFTER UPDATE ON namespace_members
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER namespace_members_view_deleted AFTER DELETE ON namespace_members
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER namespaces_view_changed AFTER UPDATE ON namespaces
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER namespaces_view_deleted AFTER DELETE ON namespaces
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_view_changed AFTER UPDATE ON users
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_view_deleted AFTER DELETE ON users
BEGIN
    UPDATE issue_view_versions SET version = version + 1 WHERE id = -1;
    REPLACE INTO issue_view_versions (id, version)
        SELECT 0, version FROM issue_view_versions WHERE id = -1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER users_view_deleted;
DROP TRIGGER users_view_changed;
DROP TRIGGER namespaces_view_deleted;
DROP TRIGGER namespaces_view_changed;
DROP TRIGGER namespace_members_view_deleted;
DROP TRIGGER namespace_members_view_changed;
DROP TRIGGER namespace_members_view_inserted;
DROP TRIGGER project_members_view_deleted;
DROP TRIGGER project_members_view_changed;
DROP TRIGGER project_members_view_inserted;
DROP TRIGGER projects_view_deleted;
DROP TRIGGER projects_view_changed;
DROP TRIGGER notes_view_deleted;
DROP TRIGGER notes_view_changed;
DROP TRIGGER notes_view_inserted;
DROP TRIGGER issue_assignees_view_deleted;
DROP TRIGGER issue_assignees_view_changed;
DROP TRIGGER issue_assignees_view_inserted;
DROP TRIGGER issues_view_deleted;
DROP TRIGGER issues_view_changed;
DROP TABLE issue_view_versions;
