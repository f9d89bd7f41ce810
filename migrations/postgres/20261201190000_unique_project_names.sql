-- +goose Up
-- A project's name is unique in its namespace, as in GitLab (Project
-- validates name uniqueness scoped to namespace_id; its database index
-- unique_projects_on_name_namespace_id is on the exact name, so names
-- differing only in case may coexist, unlike paths). Before the index,
-- every later project sharing a name in its namespace is renamed to
-- "<name>-<id>", as GitLab's FixDuplicateProjectNameAndPath did; the first
-- (lowest id) keeps its name. Paths are untouched.
UPDATE projects SET name = name || '-' || id
WHERE EXISTS (SELECT 1 FROM projects o
              WHERE o.namespace_id = projects.namespace_id AND o.name = projects.name AND o.id < projects.id);
CREATE UNIQUE INDEX index_projects_on_namespace_id_and_name ON projects (namespace_id, name);

-- +goose Down
DROP INDEX index_projects_on_namespace_id_and_name;
