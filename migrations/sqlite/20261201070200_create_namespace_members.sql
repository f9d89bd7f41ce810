-- +goose Up
-- Group memberships. A member of a group is a member of every project in
-- the group and its subgroups at that role, unless a direct membership or
-- a closer group grants more (GitLab's inherited membership).
CREATE TABLE namespace_members (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    access_level INTEGER NOT NULL CHECK (access_level IN (10, 20, 30, 40, 50)),
    created_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX index_namespace_members_on_namespace_id_and_user_id ON namespace_members (namespace_id, user_id);
CREATE INDEX index_namespace_members_on_user_id ON namespace_members (user_id);

-- Every user's effective role in every project (GitLab keeps this as the
-- project_authorizations table; here it is computed): the highest of the
-- direct membership and the memberships of the project's group and its
-- ancestors. A group is an ancestor when the project's path starts with
-- the group's full path and a slash (compared without LIKE, so "_" and
-- "%" in paths are plain characters).
CREATE VIEW project_authorizations AS
SELECT project_id, user_id, MAX(access_level) AS access_level
FROM (
    SELECT pm.project_id, pm.user_id, pm.access_level FROM project_members pm
    UNION ALL
    SELECT p.id AS project_id, nm.user_id, nm.access_level
    FROM namespace_members nm
    JOIN namespaces n ON n.id = nm.namespace_id
    JOIN projects p ON substr(lower(p.path_with_namespace), 1, length(n.full_path) + 1) = lower(n.full_path) || '/'
) grants
GROUP BY project_id, user_id;

-- +goose Down
DROP VIEW project_authorizations;
DROP TABLE namespace_members;
