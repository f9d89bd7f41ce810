package store

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// FindIssueView reads, in one statement, the project with id projectID
// (or, when projectID is 0, at path; case-insensitive), userID's role in
// it, its issue iid with author and assignees, and the issue's note
// counts: what FindProjectWithRoleByID/ByPath, LoadIssue and
// CountUserNotes read in four statements (four round trips on
// PostgreSQL). It does not check permissions.
//
// ok is false when there is no such project, no such issue, or the
// issue's author is missing: the caller then takes the statement by
// statement path, which tells these apart.
//
// With an IssueViewCache (UseIssueViewCache), outside a transaction, a
// view read before is answered from memory: the returned view and what it
// points to are shared and must not be modified.
func (s *Issues) FindIssueView(ctx context.Context, projectID int64, path string, iid, userID int64) (*models.IssueView, bool, error) {
	if c := s.views.get(); c != nil {
		if _, inTx := s.db.Statement.ConnPool.(gorm.TxCommitter); !inTx { // a transaction may see its own uncommitted writes
			return cachedIssueViews{cache: c, next: s}.FindIssueView(ctx, projectID, path, iid, userID)
		}
	}
	return s.findIssueView(ctx, projectID, path, iid, userID)
}

func (s *Issues) findIssueView(ctx context.Context, projectID int64, path string, iid, userID int64) (v *models.IssueView, ok bool, err error) {
	c := issueViewColumns()
	q, arg := s.issueView.byID, any(projectID)
	if projectID == 0 {
		q, arg = s.issueView.byPath, path
	}
	rows, done, err := s.queryRows(ctx, q.stmt, q.qmark, models.NoteableIssue, models.NoteableIssue, userID, iid, arg)
	if err != nil {
		ref := any(projectID)
		if projectID == 0 {
			ref = strconv.Quote(path)
		}
		return nil, false, fmt.Errorf("find issue #%d of project %v: %w", iid, ref, err)
	}
	defer done()
	cols, err := rows.Columns()
	if err != nil {
		return nil, false, translate(err)
	}
	targets, err := c.targets(cols)
	if err != nil {
		return nil, false, err
	}
	var (
		p        models.Project
		issue    models.Issue
		author   models.User
		row      issueViewExtra
		values   = make([]any, len(cols))
		assignee models.User
		parts    = [...]reflect.Value{
			partProject:  reflect.ValueOf(&p).Elem(),
			partIssue:    reflect.ValueOf(&issue).Elem(),
			partAuthor:   reflect.ValueOf(&author).Elem(),
			partAssignee: reflect.ValueOf(&assignee).Elem(),
			partExtra:    reflect.ValueOf(&row).Elem(),
		}
	)
	issue.Assignees = []models.User{}
	n := 0
	for rows.Next() {
		for i, t := range targets {
			values[i] = t.field.NewValuePool.Get()
		}
		if err := rows.Scan(values...); err != nil {
			return nil, false, translate(err)
		}
		assignee = models.User{}
		for i, t := range targets {
			if n == 0 || t.part == partAssignee { // the other parts repeat on every row
				if err := t.field.Set(ctx, parts[t.part], values[i]); err != nil {
					return nil, false, fmt.Errorf("scan %s: %w", cols[i], err)
				}
			}
			t.field.NewValuePool.Put(values[i])
		}
		if assignee.ID != 0 { // no assignee: the LEFT JOINs gave NULLs
			issue.Assignees = append(issue.Assignees, assignee)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, false, translate(err)
	}
	if n == 0 {
		return nil, false, nil
	}
	issue.Author = &author
	return &models.IssueView{Project: &p, Level: row.MemberAccessLevel, Issue: &issue,
		Notes: row.NotesAll, PublicNotes: row.NotesPublic}, true, nil
}

// issueViewStmts are the two statements of FindIssueView, written for
// the store's dialect.
type issueViewStmts struct {
	byID, byPath issueViewStmt
}

// issueViewStmt is one statement, prepared for the dialect, and its text
// with ? placeholders (for gorm, in a transaction).
type issueViewStmt struct {
	stmt  *lazyStmt
	qmark string
}

func newIssueViewStmts(dialect string) *issueViewStmts {
	q := func(cond string) issueViewStmt {
		qmark := "SELECT " + issueViewColumns().sel + `,
  COALESCE(pm.access_level, 0) AS member_access_level,
  (SELECT count(*) FROM notes WHERE notes.noteable_type = ? AND notes.noteable_id = issues.id AND NOT notes.system) AS notes_all,
  (SELECT count(*) FROM notes WHERE notes.noteable_type = ? AND notes.noteable_id = issues.id AND NOT notes.system AND NOT notes.internal) AS notes_public
FROM projects
LEFT JOIN project_authorizations pm ON pm.project_id = projects.id AND pm.user_id = ?
JOIN issues ON issues.project_id = projects.id AND issues.iid = ?
JOIN users author ON author.id = issues.author_id
LEFT JOIN issue_assignees ON issue_assignees.issue_id = issues.id
LEFT JOIN users assignee ON assignee.id = issue_assignees.user_id
WHERE ` + cond + `
ORDER BY assignee.id`
		sql := qmark
		if dialect == migrations.DialectPostgres {
			sql = numberedParams(qmark)
		}
		return issueViewStmt{stmt: &lazyStmt{query: sql}, qmark: qmark}
	}
	return &issueViewStmts{
		byID:   q("projects.id = ?"),
		byPath: q("lower(projects.path_with_namespace) = lower(?)"),
	}
}

// numberedParams rewrites the ? placeholders of sql (none of which may
// stand in a literal) as PostgreSQL's $1, $2, ….
func numberedParams(sql string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(sql); i++ {
		if sql[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(sql[i])
	}
	return b.String()
}

// The parts of an issue view row, each a struct its columns are set on.
const (
	partProject = iota
	partIssue
	partAuthor
	partAssignee
	partExtra
)

// issueViewExtra holds the computed columns of an issue view row.
type issueViewExtra struct {
	MemberAccessLevel models.AccessLevel
	NotesAll          int64
	NotesPublic       int64
}

// issueView is the column list of FindIssueView's statement and where
// each column goes, built once from the models' gorm schemas (so a column
// added to a model is read here too). The columns of the four tables are
// aliased (p_, i_, a_, s_), as they share names.
type issueView struct {
	sel    string
	byName map[string]columnTarget
}

type columnTarget struct {
	part  int
	field *schema.Field
}

var (
	issueViewOnce sync.Once
	issueViewCols *issueView
	issueViewErr  error
)

func issueViewColumns() *issueView {
	issueViewOnce.Do(func() { issueViewCols, issueViewErr = buildIssueView() })
	if issueViewErr != nil {
		panic(fmt.Sprintf("issue view columns: %v", issueViewErr)) // the models are fixed at build time
	}
	return issueViewCols
}

func buildIssueView() (*issueView, error) {
	v := &issueView{byName: map[string]columnTarget{}}
	cache := &sync.Map{}
	var sel []string
	for _, m := range []struct {
		model         any
		table, prefix string
		part          int
	}{
		{&models.Project{}, "projects", "p_", partProject},
		{&models.Issue{}, "issues", "i_", partIssue},
		{&models.User{}, "author", "a_", partAuthor},
		{&models.User{}, "assignee", "s_", partAssignee},
		{&issueViewExtra{}, "", "", partExtra},
	} {
		sch, err := schema.Parse(m.model, cache, schema.NamingStrategy{})
		if err != nil {
			return nil, err
		}
		for _, f := range sch.Fields {
			if f.DBName == "" || !f.Readable {
				continue
			}
			if m.table != "" {
				sel = append(sel, m.table+"."+f.DBName+" AS "+m.prefix+f.DBName)
			}
			v.byName[m.prefix+f.DBName] = columnTarget{part: m.part, field: f}
		}
	}
	v.sel = strings.Join(sel, ", ")
	return v, nil
}

// targets maps the statement's result columns to their fields.
func (v *issueView) targets(cols []string) ([]columnTarget, error) {
	out := make([]columnTarget, len(cols))
	for i, c := range cols {
		t, ok := v.byName[strings.ToLower(c)]
		if !ok {
			return nil, fmt.Errorf("issue view: unexpected column %q", c)
		}
		out[i] = t
	}
	return out, nil
}
