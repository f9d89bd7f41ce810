package store

import (
	"strings"

	"gorm.io/gorm"

	"gitlab.com/glmcp/glmcp/models"
)

// The SQL in this file applies GitLab's read rules (package
// services/access) inside queries, with roles read from the
// project_authorizations view (direct and inherited group memberships), so that searches and lists never match,
// count or page over what the viewer may not see. Keep the two in step:
// the tools' permission-matrix tests exercise both.

// visibleProjectsSQL returns a condition on the projects table (aliased
// "projects") true for the projects viewer may read, with its arguments.
func visibleProjectsSQL(viewer *models.User) (string, []any) {
	switch {
	case !viewer.Active():
		return "1 = 0", nil
	case viewer.Admin:
		return "1 = 1", nil
	}
	return "(projects.visibility IN ('public', 'internal') OR projects.id IN " +
		"(SELECT pm.project_id FROM project_authorizations pm WHERE pm.user_id = ?))", []any{viewer.ID}
}

// codeProjectsSQL returns a condition on projects true for the projects
// whose repository (files, merge requests, pipelines) viewer may read:
// public and internal ones, private ones where it has Reporter or above.
func codeProjectsSQL(viewer *models.User) (string, []any) {
	switch {
	case !viewer.Active():
		return "1 = 0", nil
	case viewer.Admin:
		return "1 = 1", nil
	}
	return "(projects.visibility IN ('public', 'internal') OR projects.id IN " + reporterProjectsSQL() + ")",
		[]any{viewer.ID}
}

// reporterProjectsSQL is a subquery of the ids of the projects where viewer
// has Reporter or above.
func reporterProjectsSQL() string {
	return "(SELECT rm.project_id FROM project_authorizations rm WHERE rm.user_id = ? AND rm.access_level >= 20)"
}

// visibleIssuesSQL returns a condition on an issues table aliased alias
// true for the issues viewer may read when it may read their project:
// public issues, and confidential ones it authored, is assigned to, or
// whose project it has Reporter or above in (administrators: all).
func visibleIssuesSQL(viewer *models.User, alias string) (string, []any) {
	switch {
	case !viewer.Active():
		return "1 = 0", nil
	case viewer.Admin:
		return "1 = 1", nil
	}
	a := alias + "."
	return "(NOT " + a + "confidential OR " + a + "author_id = ? OR EXISTS " +
			"(SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = " + a + "id AND ia.user_id = ?) OR " +
			a + "project_id IN " + reporterProjectsSQL() + ")",
		[]any{viewer.ID, viewer.ID, viewer.ID}
}

// visibleNotesSQL returns a condition on the notes table true for notes
// viewer may read in projects it may read: not internal unless Reporter or
// above, and not on a confidential issue it may not read.
func visibleNotesSQL(viewer *models.User) (string, []any) {
	switch {
	case !viewer.Active():
		return "1 = 0", nil
	case viewer.Admin:
		return "1 = 1", nil
	}
	// "Not on an issue it may not read" rather than "on an issue it may
	// read": the NOT EXISTS is an anti-join the planner runs per note
	// through the issues' primary key, where "type <> 'Issue' OR EXISTS"
	// made it hash every issue of the instance for each search. (Issues
	// are never deleted but with their project, and their notes with it,
	// so a note's issue is always there.)
	issues, args := visibleIssuesSQL(viewer, "ni")
	code, cargs := codeProjectsSQL(viewer)
	cond := "((NOT notes.internal OR notes.project_id IN " + reporterProjectsSQL() + ") AND " +
		"NOT EXISTS (SELECT 1 FROM issues ni WHERE notes.noteable_type = 'Issue' AND ni.id = notes.noteable_id AND NOT " +
		issues + ") AND " +
		"(notes.noteable_type <> 'MergeRequest' OR notes.project_id IN (SELECT projects.id FROM projects WHERE " + code + ")))"
	args = append([]any{viewer.ID}, args...)
	return cond, append(args, cargs...)
}

// scopeProjectsSQL returns a condition on projects limiting a search to
// one project or a group's subtree, with its arguments ("" when neither).
func scopeProjectsSQL(projectID int64, groupPath string) (string, []any) {
	switch {
	case projectID > 0:
		return "projects.id = ?", []any{projectID}
	case groupPath != "":
		return "projects.namespace_id IN (SELECT sg.id FROM namespaces sg WHERE lower(sg.full_path) = lower(?) " +
			`OR lower(sg.full_path) LIKE ? ESCAPE '\')`, []any{groupPath, likePrefix(groupPath + "/")}
	}
	return "", nil
}

// withProjects restricts q (whose rows carry project_id in column col) to
// the projects viewer may read and the search scope.
func withProjects(q *gorm.DB, col string, viewer *models.User, projectID int64, groupPath string) *gorm.DB {
	vis, vargs := visibleProjectsSQL(viewer)
	return restrictProjects(q, col, vis, vargs, projectID, groupPath)
}

// withCodeProjects is withProjects for repository data (merge requests,
// files): private projects need Reporter.
func withCodeProjects(q *gorm.DB, col string, viewer *models.User, projectID int64, groupPath string) *gorm.DB {
	vis, vargs := codeProjectsSQL(viewer)
	return restrictProjects(q, col, vis, vargs, projectID, groupPath)
}

// With a project the equality col = projectID is stated on the rows
// themselves, not only inside the subquery: SQLite's planner does not see
// through "col IN (SELECT …)", and without it sorts every row of the
// project for a page instead of reading the (project_id, …) index in order.
func restrictProjects(q *gorm.DB, col, vis string, vargs []any, projectID int64, groupPath string) *gorm.DB {
	if projectID > 0 {
		q = q.Where(col+" = ?", projectID)
	}
	sub := "SELECT projects.id FROM projects WHERE " + vis
	args := vargs
	if scope, sargs := scopeProjectsSQL(projectID, groupPath); scope != "" {
		sub += " AND " + scope
		args = append(args, sargs...)
	}
	return q.Where(col+" IN ("+sub+")", args...)
}

// likeEscape escapes LIKE's wildcards (with backslash as the escape
// character) in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// likeContains is a lower-case LIKE pattern matching s anywhere.
func likeContains(s string) string { return "%" + likeEscape(strings.ToLower(s)) + "%" }

// likePrefix is a lower-case LIKE pattern matching strings starting with s.
func likePrefix(s string) string { return likeEscape(strings.ToLower(s)) + "%" }
