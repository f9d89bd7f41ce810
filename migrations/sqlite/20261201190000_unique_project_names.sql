-- +goose Up
-- A project's name is unique in its namespace, as in GitLab (Project
-- validates name uniqueness scoped to namespace_id; its database index
-- unique_projects_on_name_namespace_id is on the exact name, so names
-- differing only in case may coexist, unlike paths). Before the index,
-- every later project sharing a name in its namespace is renamed to
-- "<name>-<id>", as GitLab's FixDuplicateProjectNameAndPath did; the first
-- (lowest id) keeps its name. Paths are untouched: they are unique already
-- (index_projects_on_lower_path_with_namespace).
--
-- "<name>-<id>" may be the name of a project that keeps its name (one
-- named "App-7" beside a seventh "App"); "-<id>" is then appended again
-- until the name is free. Renamed names cannot collide with each other:
-- each ends in "-<its own id>", and "-<i>" is never a suffix of "-<j>"
-- for ids i != j, so only the kept names need checking, and those do not
-- change.
WITH RECURSIVE kept (namespace_id, name) AS (
    SELECT p.namespace_id, p.name FROM projects p
    WHERE NOT EXISTS (SELECT 1 FROM projects o
                      WHERE o.namespace_id = p.namespace_id AND o.name = p.name AND o.id < p.id)
), renamed (id, namespace_id, name) AS (
    SELECT p.id, p.namespace_id, p.name || '-' || p.id FROM projects p
    WHERE EXISTS (SELECT 1 FROM projects o
                  WHERE o.namespace_id = p.namespace_id AND o.name = p.name AND o.id < p.id)
    UNION ALL
    SELECT r.id, r.namespace_id, r.name || '-' || r.id FROM renamed r
    JOIN kept k ON k.namespace_id = r.namespace_id AND k.name = r.name
)
UPDATE projects SET name = r.name FROM renamed r
WHERE r.id = projects.id
  AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.namespace_id = r.namespace_id AND k.name = r.name);
CREATE UNIQUE INDEX index_projects_on_namespace_id_and_name ON projects (namespace_id, name);

-- +goose Down
DROP INDEX index_projects_on_namespace_id_and_name;
