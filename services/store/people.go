package store

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// userLink is a join table linking users to an issue or merge request in
// one role.
type userLink struct {
	role  string // a constant naming the role in the query's results
	table string // the join table, with columns col and user_id
	col   string
}

// The join tables of the roles LoadIssue and LoadMergeRequest read.
var (
	issueAssignees        = userLink{role: "assignee", table: "issue_assignees", col: "issue_id"}
	mergeRequestAssignees = userLink{role: "assignee", table: "merge_request_assignees", col: "merge_request_id"}
	mergeRequestReviewers = userLink{role: "reviewer", table: "merge_request_reviewers", col: "merge_request_id"}
)

// peopleOf is the author of an issue or merge request and its linked users
// by role.
type peopleOf struct {
	author *models.User // nil when the author row is missing
	linked map[string][]models.User
}

// personRow is a user with the role it was read in.
type personRow struct {
	models.User
	LinkRole string
}

// people reads the author (authorID) and the users linked to ownerID
// through links in ONE statement, so that an issue or merge request costs
// two round trips rather than one per association: a UNION ALL of the
// author and the join tables, joined with users, ordered by user id (so
// each role's list comes out ordered by id, as GitLab lists them). Every
// role gets a non-nil list.
//
// On the embedded SQLite store this form is also cheaper than joining the
// author's columns onto the issue row: SQLite prepares every statement
// anew, and a 22-column LEFT JOIN costs more to prepare than two small
// statements.
func (s *core) people(ctx context.Context, authorID, ownerID int64, links ...userLink) (*peopleOf, error) {
	var sub strings.Builder
	sub.WriteString("SELECT CAST(? AS BIGINT) AS user_id, 'author' AS link_role")
	args := []any{authorID}
	for _, l := range links {
		// role, table and col are the constants above, never input.
		sub.WriteString(" UNION ALL SELECT user_id, '" + l.role + "' FROM " + l.table + " WHERE " + l.col + " = ?")
		args = append(args, ownerID)
	}
	var rows []personRow
	err := s.conn(ctx).Table("users").Select("users.*, people.link_role").
		Joins("JOIN ("+sub.String()+") people ON people.user_id = users.id", args...).
		Order("users.id").Find(&rows).Error
	if err != nil {
		return nil, translate(err)
	}
	out := &peopleOf{linked: make(map[string][]models.User, len(links))}
	for _, l := range links {
		out.linked[l.role] = []models.User{}
	}
	for k := range rows {
		r := &rows[k]
		if r.LinkRole == "author" {
			u := r.User
			out.author = &u
			continue
		}
		out.linked[r.LinkRole] = append(out.linked[r.LinkRole], r.User)
	}
	return out, nil
}
