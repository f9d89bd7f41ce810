-- +goose Up
-- See the PostgreSQL migration of the same version for the model. SQLite
-- cannot add a column with both a REFERENCES clause and a non-NULL default,
-- so issues.work_item_type_id is held to the known ids by a CHECK instead.
CREATE TABLE work_item_types (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    base_type   TEXT    NOT NULL UNIQUE,
    icon_name   TEXT    NOT NULL,
    edition     TEXT    NOT NULL CHECK (edition IN ('ce', 'ee')),
    group_level BOOLEAN NOT NULL DEFAULT 0
);
INSERT INTO work_item_types (id, name, base_type, icon_name, edition, group_level) VALUES
    (1, 'Issue',      'issue',      'work-item-issue',      'ce', 0),
    (2, 'Incident',   'incident',   'work-item-incident',   'ce', 0),
    (3, 'Test Case',  'test_case',  'work-item-test-case',  'ee', 0),
    (4, 'Requirement','requirement','work-item-requirement','ee', 0),
    (5, 'Task',       'task',       'work-item-task',       'ce', 0),
    (6, 'Objective',  'objective',  'work-item-objective',  'ee', 0),
    (7, 'Key Result', 'key_result', 'work-item-keyresult',  'ee', 0),
    (8, 'Epic',       'epic',       'work-item-epic',       'ee', 1),
    (9, 'Ticket',     'ticket',     'work-item-ticket',     'ce', 0);

CREATE TABLE milestones (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER  NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    iid         INTEGER  NOT NULL CHECK (iid > 0),
    title       TEXT     NOT NULL CHECK (title <> ''),
    description TEXT     NOT NULL DEFAULT '',
    state       TEXT     NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'closed')),
    start_date  DATE,
    due_date    DATE,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (start_date IS NULL OR due_date IS NULL OR start_date <= due_date)
);
CREATE UNIQUE INDEX index_milestones_on_project_id_and_iid ON milestones (project_id, iid);
CREATE UNIQUE INDEX index_milestones_on_project_id_and_title ON milestones (project_id, title);

ALTER TABLE issues ADD COLUMN work_item_type_id INTEGER NOT NULL DEFAULT 1 CHECK (work_item_type_id BETWEEN 1 AND 9);
ALTER TABLE issues ADD COLUMN milestone_id INTEGER REFERENCES milestones (id) ON DELETE SET NULL;
ALTER TABLE issues ADD COLUMN start_date DATE;
ALTER TABLE issues ADD COLUMN due_date DATE CHECK (start_date IS NULL OR due_date IS NULL OR start_date <= due_date);
CREATE INDEX index_issues_on_project_id_and_created_at_and_id ON issues (project_id, created_at, id);
CREATE INDEX index_issues_on_project_id_and_updated_at_and_id ON issues (project_id, updated_at, id);
CREATE INDEX index_issues_on_milestone_id ON issues (milestone_id);
CREATE INDEX index_issues_on_work_item_type_id ON issues (work_item_type_id);

INSERT INTO milestones (project_id, iid, title)
SELECT project_id, row_number() OVER (PARTITION BY project_id ORDER BY title), title
FROM (SELECT DISTINCT project_id, milestone AS title FROM issues WHERE milestone <> '') t;
INSERT INTO internal_ids (project_id, usage, last_value)
SELECT project_id, 'milestones', max(iid) FROM milestones GROUP BY project_id;
UPDATE issues SET milestone_id = (SELECT m.id FROM milestones m
    WHERE m.project_id = issues.project_id AND m.title = issues.milestone)
WHERE milestone <> '';

CREATE TABLE work_item_parent_links (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    work_item_id        INTEGER  NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    work_item_parent_id INTEGER  NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    relative_position   INTEGER,
    created_at          DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at          DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (work_item_id <> work_item_parent_id)
);
CREATE UNIQUE INDEX index_work_item_parent_links_on_work_item_id ON work_item_parent_links (work_item_id);
CREATE INDEX index_work_item_parent_links_on_parent_id ON work_item_parent_links (work_item_parent_id);

CREATE TABLE issue_links (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id  INTEGER  NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    target_id  INTEGER  NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    link_type  TEXT     NOT NULL DEFAULT 'relates_to' CHECK (link_type IN ('relates_to', 'blocks')),
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (source_id <> target_id)
);
CREATE UNIQUE INDEX index_issue_links_on_source_id_and_target_id ON issue_links (source_id, target_id);
CREATE INDEX index_issue_links_on_target_id ON issue_links (target_id);

-- +goose Down
DROP TABLE issue_links;
DROP TABLE work_item_parent_links;
DROP INDEX index_issues_on_work_item_type_id;
DROP INDEX index_issues_on_milestone_id;
DROP INDEX index_issues_on_project_id_and_updated_at_and_id;
DROP INDEX index_issues_on_project_id_and_created_at_and_id;
ALTER TABLE issues DROP COLUMN due_date;
ALTER TABLE issues DROP COLUMN start_date;
ALTER TABLE issues DROP COLUMN milestone_id;
ALTER TABLE issues DROP COLUMN work_item_type_id;
DELETE FROM internal_ids WHERE usage = 'milestones';
DROP TABLE milestones;
DROP TABLE work_item_types;
