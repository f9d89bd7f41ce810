package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// Reassignment is what ReassignPlaceholder moved, by what it moved
// ("issues.author_id": 3), and whether the placeholder user was removed.
type Reassignment struct {
	Placeholder, Target models.User
	Moved               map[string]int64
	PlaceholderRemoved  bool
}

// userReference is a column naming a user: how its rows of one project
// are found (scope, a condition on the project id ?), and, for a link
// table whose rows are unique per user (keyed by the owner column), that
// owner column.
type userReference struct {
	table, column, scope, owner string
}

// inProject scopes the rows of a table with a project_id column.
const inProject = "project_id = ?"

// userReferences are every column of the store that names a user,
// the project's rows of which a reassignment moves (the tokens, group
// memberships and tool approvals a placeholder never has are removed with
// it). A new column naming users belongs here: TestUserReferences
// compares this list with the database's foreign keys.
var userReferences = []userReference{
	{table: "issues", column: "author_id", scope: inProject},
	{table: "issue_assignees", column: "user_id", scope: "issue_id IN (SELECT id FROM issues WHERE project_id = ?)", owner: "issue_id"},
	{table: "merge_requests", column: "author_id", scope: inProject},
	{table: "merge_requests", column: "merge_user_id", scope: inProject},
	{table: "merge_request_assignees", column: "user_id", scope: "merge_request_id IN (SELECT id FROM merge_requests WHERE project_id = ?)", owner: "merge_request_id"},
	{table: "merge_request_reviewers", column: "user_id", scope: "merge_request_id IN (SELECT id FROM merge_requests WHERE project_id = ?)", owner: "merge_request_id"},
	{table: "approvals", column: "user_id", scope: "merge_request_id IN (SELECT id FROM merge_requests WHERE project_id = ?)", owner: "merge_request_id"},
	{table: "notes", column: "author_id", scope: inProject},
	{table: "notes", column: "resolved_by_id", scope: inProject},
	{table: "ci_pipelines", column: "user_id", scope: inProject},
	{table: "ci_jobs", column: "user_id", scope: inProject},
	{table: "releases", column: "author_id", scope: inProject},
	{table: "vulnerabilities", column: "author_id", scope: inProject},
	{table: "vulnerabilities", column: "confirmed_by_id", scope: inProject},
	{table: "vulnerabilities", column: "dismissed_by_id", scope: inProject},
	{table: "vulnerabilities", column: "resolved_by_id", scope: inProject},
	{table: "vulnerability_events", column: "author_id", scope: "vulnerability_id IN (SELECT id FROM vulnerabilities WHERE project_id = ?)"},
	// project_members: moved by moveMembership (the higher role wins).
	// import_source_users: the reassignment's own record.
}

// ownedWithUser are the user columns a user's removal takes with it
// (ON DELETE CASCADE) and which a placeholder user is not named by for
// ReassignPlaceholder's "nothing names it".
var ownedWithUser = []userReference{
	{table: "personal_access_tokens", column: "user_id"},
	{table: "oauth_access_tokens", column: "resource_owner_id"},
	{table: "namespace_members", column: "user_id"},
	{table: "tool_approvals_used", column: "user_id"},
}

// ReassignPlaceholder gives everything placeholder user placeholder
// (a username) stands for in project projectID to the real user target,
// as GitLab's user contribution mapping reassigns a source user: the
// authorship, assignments, reviews, approvals, pipelines and jobs,
// releases and vulnerability records of the project's rows, and its
// membership of the project (the higher role, when target is a member
// already). The placeholder's source user is marked completed, naming
// target; the placeholder user is removed when nothing names it any more.
// All in one transaction: refused, nothing changes. Refusals
// (models.ErrInvalidInput unless said): an unknown user
// (models.ErrNotFound); a target that is not an active user, or is
// itself a placeholder; a placeholder that is no placeholder of the
// project; one already reassigned (models.ErrConflict).
func (s *Imports) ReassignPlaceholder(ctx context.Context, projectID int64, placeholder, target string) (*Reassignment, error) {
	fail := func(err error) (*Reassignment, error) {
		return nil, fmt.Errorf("reassign %s to %s: %w", placeholder, target, err)
	}
	if strings.EqualFold(placeholder, target) {
		return fail(fmt.Errorf("a placeholder cannot be reassigned to itself: %w", models.ErrInvalidInput))
	}
	var out *Reassignment
	err := s.st.WithTx(ctx, func(tx *Store) error {
		var err error
		out, err = tx.Imports.reassign(ctx, projectID, placeholder, target)
		return err
	})
	if err != nil {
		return fail(err)
	}
	return out, nil
}

func (s *Imports) reassign(ctx context.Context, projectID int64, placeholder, target string) (*Reassignment, error) {
	db := s.conn(ctx)
	user := func(username string) (*models.User, error) {
		var u models.User
		err := db.Where("lower(username) = lower(?)", username).Take(&u).Error
		if errors.Is(translate(err), models.ErrNotFound) {
			return nil, fmt.Errorf("no user %q: %w", username, models.ErrNotFound)
		}
		return &u, translate(err)
	}
	ph, err := user(placeholder)
	if err != nil {
		return nil, err
	}
	to, err := user(target)
	if err != nil {
		return nil, err
	}
	// Both users locked, in id order (two reassignments between the same
	// users cannot deadlock), and read again: two reassignments of one
	// placeholder, or to one user, take their turns, and a user blocked
	// meanwhile is seen blocked. SQLite's write lock serializes them
	// anyway.
	var locked []models.User
	if err := s.forUpdate(db.Where("id IN ?", []int64{ph.ID, to.ID}).Order("id")).Find(&locked).Error; err != nil {
		return nil, translate(err)
	}
	for k := range locked {
		switch locked[k].ID {
		case ph.ID:
			ph = &locked[k]
		case to.ID:
			to = &locked[k]
		}
	}
	if len(locked) != 2 {
		return nil, fmt.Errorf("user %s or %s was removed meanwhile: %w", placeholder, target, models.ErrNotFound)
	}
	if !to.Active() {
		return nil, fmt.Errorf("user %s is %s: contributions go to an active user: %w", to.Username, to.State, models.ErrInvalidInput)
	}
	var pending int64
	if err := db.Model(&models.ImportSourceUser{}).Where("placeholder_user_id = ? AND status = ?", to.ID, models.SourceUserPending).
		Count(&pending).Error; err != nil {
		return nil, translate(err)
	}
	if pending > 0 {
		return nil, fmt.Errorf("user %s is itself a placeholder user: contributions go to a real user: %w", to.Username, models.ErrInvalidInput)
	}
	var su models.ImportSourceUser
	err = db.Where("project_id = ? AND placeholder_user_id = ?", projectID, ph.ID).Order("id").Take(&su).Error
	if errors.Is(translate(err), models.ErrNotFound) {
		return nil, fmt.Errorf("user %s is not a placeholder user of this project: %w", ph.Username, models.ErrInvalidInput)
	} else if err != nil {
		return nil, translate(err)
	}
	if su.Status != models.SourceUserPending {
		return nil, fmt.Errorf("placeholder %s was reassigned already: %w", ph.Username, models.ErrConflict)
	}

	r := &Reassignment{Placeholder: *ph, Target: *to, Moved: map[string]int64{}}
	for _, ref := range userReferences {
		n, err := s.moveReference(ctx, ref, projectID, ph.ID, to.ID)
		if err != nil {
			return nil, fmt.Errorf("move %s.%s: %w", ref.table, ref.column, err)
		}
		if n > 0 {
			r.Moved[ref.table+"."+ref.column] = n
		}
	}
	n, err := s.st.Groups.moveMembership(ctx, projectID, ph.ID, to.ID)
	if err != nil {
		return nil, err
	}
	if su.AccessLevel != nil {
		granted, err := s.st.Groups.grantRole(ctx, projectID, to.ID, *su.AccessLevel)
		if err != nil {
			return nil, err
		}
		n += granted
	}
	if n > 0 {
		r.Moved["project_members.user_id"] = n
	}
	if err := db.Model(&models.ImportSourceUser{}).Where("id = ?", su.ID).Updates(map[string]any{
		"status": models.SourceUserCompleted, "reassign_to_user_id": to.ID, "updated_at": s.clock()}).Error; err != nil {
		return nil, translate(err)
	}
	named, err := s.namesUser(ctx, ph.ID)
	if err != nil {
		return nil, err
	}
	if !named {
		if err := db.Exec("DELETE FROM users WHERE id = ?", ph.ID).Error; err != nil {
			return nil, fmt.Errorf("remove placeholder %s: %w", ph.Username, translate(err))
		}
		r.PlaceholderRemoved = true
	}
	s.changedViews(projectViews(projectID), userViews(ph.ID), userViews(to.ID))
	return r, nil
}

// moveReference gives the rows of project projectID that ref finds naming
// from to to; in a link table, a row whose owner already names to is
// dropped instead (one link per user).
func (s *Imports) moveReference(ctx context.Context, ref userReference, projectID, from, to int64) (int64, error) {
	db := s.conn(ctx)
	var dropped int64
	if ref.owner != "" {
		res := db.Exec(fmt.Sprintf("DELETE FROM %s WHERE %s = ? AND %s AND %s IN (SELECT %s FROM %s WHERE %s = ?)",
			ref.table, ref.column, ref.scope, ref.owner, ref.owner, ref.table, ref.column), from, projectID, to)
		if res.Error != nil {
			return 0, translate(res.Error)
		}
		dropped = res.RowsAffected
	}
	res := db.Exec(fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ? AND %s", ref.table, ref.column, ref.column, ref.scope), to, from, projectID)
	if res.Error != nil {
		return 0, translate(res.Error)
	}
	return dropped + res.RowsAffected, nil
}

// namesUser reports whether any row of any project still names user id
// (beyond what the user's removal takes with it), or a source user not
// yet reassigned stands on it.
func (s *Imports) namesUser(ctx context.Context, id int64) (bool, error) {
	db := s.conn(ctx)
	refs := append([]userReference{{table: "project_members", column: "user_id"}}, userReferences...)
	var parts []string
	var args []any
	for _, ref := range refs {
		parts = append(parts, fmt.Sprintf("EXISTS (SELECT 1 FROM %s WHERE %s = ?)", ref.table, ref.column))
		args = append(args, id)
	}
	parts = append(parts, "EXISTS (SELECT 1 FROM import_source_users WHERE placeholder_user_id = ? AND status = ?)")
	args = append(args, id, models.SourceUserPending)
	var n int64
	if err := db.Raw("SELECT CASE WHEN "+strings.Join(parts, " OR ")+" THEN 1 ELSE 0 END", args...).Scan(&n).Error; err != nil {
		return false, translate(err)
	}
	return n > 0, nil
}
