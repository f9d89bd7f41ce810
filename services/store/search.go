package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"gorm.io/gorm"
	"modernc.org/sqlite"

	"gitlab.com/glmcp/glmcp/models"
)

// The Search* methods run one page of a GitLab search (see
// models.SearchQuery): every condition on what the viewer may read is part
// of the query, so totals never count what the viewer cannot see. Each
// returns the page and the total number of matches.

// SearchProjects matches the name, path, full path and description of the
// projects the viewer may read, archived ones left out (GitLab's search
// leaves them out unless asked, and the MCP tool cannot ask).
func (s *Search) SearchProjects(ctx context.Context, q models.SearchQuery) ([]models.Project, int64, error) {
	db := withProjects(s.conn(ctx).Model(&models.Project{}), "projects.id", q.Viewer, q.ProjectID, q.GroupPath)
	db = db.Where("NOT projects.archived")
	db = matchAny(db, q.Term, "projects.name", "projects.path", "projects.path_with_namespace", "projects.description")
	out := []models.Project{}
	total, err := page(s.limits, db, q, "projects", &out, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("search projects: %w", err)
	}
	return out, total, nil
}

// SearchIssues matches the title (and description unless TitleOnly) of the
// issues the viewer may read, confidential ones included only where
// allowed. Authors and assignees are loaded.
func (s *Search) SearchIssues(ctx context.Context, q models.SearchQuery) ([]models.Issue, int64, error) {
	db := withProjects(s.conn(ctx).Model(&models.Issue{}), "issues.project_id", q.Viewer, q.ProjectID, q.GroupPath)
	vis, args := visibleIssuesSQL(q.Viewer, "issues")
	db = db.Where(vis, args...)
	db = matchAny(db, q.Term, textColumns("issues", q.TitleOnly)...)
	if !q.TitleOnly {
		db = lockdownTitleOrTrusted(db, q.Lockdown, q.Term, "issues")
	}
	if q.State != "" {
		db = db.Where("issues.state = ?", q.State)
	}
	if q.Confidential != nil {
		if *q.Confidential {
			db = db.Where("issues.confidential")
		} else {
			db = db.Where("NOT issues.confidential")
		}
	}
	out := []models.Issue{}
	total, err := page(s.limits, db, q, "issues", &out, func(db *gorm.DB) *gorm.DB {
		return db.Preload("Author").Preload("Assignees", orderByID)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("search issues: %w", err)
	}
	return out, total, nil
}

// SearchMergeRequests matches the title (and description unless
// TitleOnly) of the merge requests in projects whose repository the viewer
// may read (not Guests of private projects).
// Authors, assignees and reviewers are loaded.
func (s *Search) SearchMergeRequests(ctx context.Context, q models.SearchQuery) ([]models.MergeRequest, int64, error) {
	db := withCodeProjects(s.conn(ctx).Model(&models.MergeRequest{}), "merge_requests.project_id", q.Viewer, q.ProjectID, q.GroupPath)
	db = matchAny(db, q.Term, textColumns("merge_requests", q.TitleOnly)...)
	if !q.TitleOnly {
		db = lockdownTitleOrTrusted(db, q.Lockdown, q.Term, "merge_requests")
	}
	if q.State != "" {
		db = db.Where("merge_requests.state = ?", q.State)
	}
	out := []models.MergeRequest{}
	total, err := page(s.limits, db, q, "merge_requests", &out, func(db *gorm.DB) *gorm.DB {
		return db.Preload("Author").Preload("Assignees", orderByID).Preload("Reviewers", orderByID)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("search merge requests: %w", err)
	}
	return out, total, nil
}

// SearchNotes matches the body of the user (non-system) notes the viewer
// may read: not internal ones below Reporter, not those on confidential
// issues it may not see, not those on merge requests it may not see.
// Authors are loaded.
func (s *Search) SearchNotes(ctx context.Context, q models.SearchQuery) ([]models.Note, int64, error) {
	db := withProjects(s.conn(ctx).Model(&models.Note{}), "notes.project_id", q.Viewer, q.ProjectID, q.GroupPath)
	vis, args := visibleNotesSQL(q.Viewer)
	db = db.Where("NOT notes.system").Where(vis, args...)
	db = matchAny(db, q.Term, "notes.body")
	if q.Lockdown {
		db = db.Where(trustedAuthorSQL("notes"))
	}
	out := []models.Note{}
	total, err := page(s.limits, db, q, "notes", &out, func(db *gorm.DB) *gorm.DB { return db.Preload("Author") })
	if err != nil {
		return nil, 0, fmt.Errorf("search notes: %w", err)
	}
	return out, total, nil
}

// SearchGroups matches the name, path and full path of the groups the
// viewer may see: public and internal ones, private ones it is a member of
// (of the group, an ancestor, a subgroup or a project in it), all for an
// administrator. With GroupPath only the group's descendants are searched.
func (s *Search) SearchGroups(ctx context.Context, q models.SearchQuery) ([]models.Group, int64, error) {
	db := s.conn(ctx).Model(&models.Group{})
	switch {
	case !q.Viewer.Active():
		db = db.Where("1 = 0")
	case !q.Viewer.Admin:
		member, args := groupMemberSQL("namespaces", q.Viewer)
		db = db.Where("(namespaces.visibility IN ('public', 'internal') OR "+member+")", args...)
	}
	if q.GroupPath != "" {
		db = db.Where(`lower(namespaces.full_path) LIKE ? ESCAPE '\'`, likePrefix(q.GroupPath+"/"))
	}
	db = matchAny(db, q.Term, "namespaces.name", "namespaces.path", "namespaces.full_path")
	out := []models.Group{}
	total, err := page(s.limits, db, q, "namespaces", &out, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("search groups: %w", err)
	}
	return out, total, nil
}

// SearchMilestones matches the title and description of the milestones of
// the projects the viewer may read.
func (s *Search) SearchMilestones(ctx context.Context, q models.SearchQuery) ([]models.Milestone, int64, error) {
	db := withProjects(s.conn(ctx).Model(&models.Milestone{}), "milestones.project_id", q.Viewer, q.ProjectID, q.GroupPath)
	db = matchAny(db, q.Term, "milestones.title", "milestones.description")
	out := []models.Milestone{}
	total, err := page(s.limits, db, q, "milestones", &out, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("search milestones: %w", err)
	}
	return out, total, nil
}

// SearchWikiPages matches the slug, title and content of the wiki pages of
// the projects the viewer may read (GitLab's wiki_blobs scope).
func (s *Search) SearchWikiPages(ctx context.Context, q models.SearchQuery) ([]models.WikiPage, int64, error) {
	db := withProjects(s.conn(ctx).Model(&models.WikiPage{}), "wiki_pages.project_id", q.Viewer, q.ProjectID, q.GroupPath)
	db = matchAny(db, q.Term, "wiki_pages.slug", "wiki_pages.title", "wiki_pages.content")
	out := []models.WikiPage{}
	total, err := page(s.limits, db, q, "wiki_pages", &out, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("search wiki pages: %w", err)
	}
	return out, total, nil
}

// SearchUsers matches usernames and names. Only administrators see users
// who are not active. In a project or group search only members of the
// project (of a project of the group) the viewer may read are matched.
func (s *Search) SearchUsers(ctx context.Context, q models.SearchQuery) ([]models.User, int64, error) {
	db := s.conn(ctx).Model(&models.User{})
	switch {
	case !q.Viewer.Active():
		db = db.Where("1 = 0")
	case !q.Viewer.Admin:
		db = db.Where("users.state = ?", models.UserActive)
	}
	if q.ProjectID > 0 || q.GroupPath != "" {
		members := withProjects(s.conn(ctx).Table("project_authorizations").Select("project_authorizations.user_id"),
			"project_authorizations.project_id", q.Viewer, q.ProjectID, q.GroupPath)
		db = db.Where("users.id IN (?)", members)
	}
	db = matchAny(db, q.Term, "users.username", "users.name")
	out := []models.User{}
	total, err := page(s.limits, db, q, "users", &out, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("search users: %w", err)
	}
	return out, total, nil
}

// matchAny adds "term is a substring of one of cols" (case-insensitive);
// an empty term matches everything. It is written for the search indexes
// (see doc/architecture.md, "Search indexes"):
//
//   - PostgreSQL: ILIKE '%term%' on each column (a BitmapOr across the
//     columns' pg_trgm GIN indexes), written for a column with a
//     lower-cased twin as coalesce(col_lower, lower(col)) LIKE
//     lower('%term%'): the same answer (PostgreSQL runs ILIKE as lower()
//     of both sides), without lowering each tested row's text (see
//     pgMatch).
//   - SQLite: when the columns are all indexed by their table's FTS5
//     trigram table, the term has three characters or more and one of its
//     trigrams is rare (ftsSelective), the rows whose id the FTS5 table
//     matches (a phrase query: the term as a substring, case-insensitive);
//     otherwise col LIKE (ASCII terms; SQLite's LIKE ignores ASCII case)
//     or glmcp_fold(col) LIKE on the rows, read newest first.
//
// LIKE's wildcards (%, _ and the escape \) in term match themselves.
func matchAny(db *gorm.DB, term string, cols ...string) *gorm.DB {
	term = strings.TrimSpace(term)
	if term == "" {
		return db
	}
	if db.Dialector.Name() == "postgres" {
		conds := make([]string, len(cols))
		args := make([]any, len(cols))
		for k, c := range cols {
			conds[k] = pgMatch(c)
			args[k] = "%" + likeEscape(term) + "%"
		}
		return db.Where("("+strings.Join(conds, " OR ")+")", args...)
	}
	if table, fields, ok := ftsColumns(cols); ok && utf8.RuneCountInString(term) >= minTrigramTerm && ftsSelective(db, table, term) {
		return db.Where(table+".id IN (SELECT rowid FROM "+table+"_fts WHERE "+table+"_fts MATCH ?)",
			"{"+strings.Join(fields, " ")+`} : "`+strings.ReplaceAll(term, `"`, `""`)+`"`)
	}
	// SQLite's LIKE ignores the case of ASCII letters by itself: an ASCII
	// term needs no fold of the column (a function call per row).
	fold := "("
	if !isASCII(term) {
		fold = foldFunc + "("
	}
	conds := make([]string, len(cols))
	args := make([]any, len(cols))
	pat := likeContains(term)
	for k, c := range cols {
		conds[k] = fold + c + `) LIKE ? ESCAPE '\'`
		args[k] = pat
	}
	return db.Where("("+strings.Join(conds, " OR ")+")", args...)
}

// pgMatch is PostgreSQL's "col ILIKE ?" (a pattern with '\' as its
// escape). A column search indexes (ftsIndexed, the columns SQLite's FTS5
// tables hold) has a twin col_lower that triggers keep equal to
// lower(col) (migration 20261208010000), and its trigram index is on
// coalesce(col_lower, lower(col)): matched in that form, LIKE tests the
// stored lower-case text. ILIKE lowers the whole text of every row it
// tests, which for a common term's capped count of long descriptions was
// most of the search (3.8 against 0.4 ms for 1,001 merge requests). The
// coalesce keeps the answer exact for a row whose twin a migration has
// not filled yet.
func pgMatch(col string) string {
	if table, field, ok := strings.Cut(col, "."); ok && slices.Contains(ftsIndexed[table], field) {
		return "coalesce(" + col + "_lower, lower(" + col + `)) LIKE lower(?) ESCAPE '\'`
	}
	return col + ` ILIKE ? ESCAPE '\'`
}

func isASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldFunc is the SQLite function matchAny folds a column's case with:
// strings.ToLower, where SQLite's lower() folds ASCII only, so that "ÄBC"
// matches "äbc" as it does through the FTS5 index and on PostgreSQL.
const foldFunc = "glmcp_fold"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(foldFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		}
		return args[0], nil
	})
}

// minTrigramTerm is the shortest term an FTS5 trigram index can answer.
const minTrigramTerm = 3

// ftsSelectiveDocs is how many rows the rarest trigram of a term may be
// in for the SQLite search to go through the FTS5 index.
// (A variable for the tests, which pin both plans' answers.)
var ftsSelectiveDocs atomic.Int64

func init() { ftsSelectiveDocs.Store(2000) }

// ftsSelective reports whether table's FTS5 index is the cheaper way to
// find term on SQLite, which has no statistics to choose between its
// plans as PostgreSQL's planner does. The index answers a phrase by
// walking the rows of its rarest trigram: quick when that trigram is in
// few rows, slower than reading the project's newest rows until a page of
// matches is found when every trigram of the term is in thousands (a
// common word matches every few rows).
//
// Each trigram's rows are counted through the index itself, and only up
// to the threshold: the first trigram found in no more rows decides (a
// trigram in no row at all means no match, which the index finds at
// once). The table's fts5vocab table would give the counts in one query,
// but it computes a trigram's count by reading the trigram's whole list
// of rows: for the common trigrams of a term in 500,000 notes that was
// a third of a second, on every search. An error means the index.
func ftsSelective(db *gorm.DB, table, term string) bool {
	runes := []rune(strings.ToLower(term))
	var trigrams []string
	for k := 0; k+minTrigramTerm <= len(runes); k++ {
		if g := string(runes[k : k+minTrigramTerm]); !slices.Contains(trigrams, g) {
			trigrams = append(trigrams, g)
		}
	}
	limit := ftsSelectiveDocs.Load()
	conn := db.Session(&gorm.Session{NewDB: true})
	for _, g := range trigrams {
		var rows int64
		err := conn.Raw("SELECT count(*) FROM (SELECT 1 FROM "+table+"_fts WHERE "+table+"_fts MATCH ? LIMIT ?)",
			`"`+strings.ReplaceAll(g, `"`, `""`)+`"`, limit+1).Scan(&rows).Error
		if err != nil || rows <= limit {
			return true
		}
	}
	return false
}

// ftsIndexed are the columns each SQLite FTS5 trigram table indexes
// (<table>_fts, migration 20261207160000_search_indexes).
var ftsIndexed = map[string][]string{
	"issues":         {"title", "description"},
	"merge_requests": {"title", "description"},
	"notes":          {"body"},
	"milestones":     {"title", "description"},
	"wiki_pages":     {"slug", "title", "content"},
}

// ftsColumns reports the table of cols ("table.column" each) and their
// column names when one FTS5 table indexes them all.
func ftsColumns(cols []string) (string, []string, bool) {
	var table string
	fields := make([]string, len(cols))
	for k, c := range cols {
		t, f, ok := strings.Cut(c, ".")
		if !ok || (table != "" && t != table) || !slices.Contains(ftsIndexed[t], f) {
			return "", nil, false
		}
		table, fields[k] = t, f
	}
	return table, fields, table != ""
}

func textColumns(table string, titleOnly bool) []string {
	if titleOnly {
		return []string{table + ".title"}
	}
	return []string{table + ".title", table + ".description"}
}

// page loads q's page of db's matches ordered by creation time (then id,
// the same direction; on PostgreSQL, when the planner expects few
// matches of a search term, in a form that makes it read them through
// the trigram indexes and sort them: pgFewMatches) into dst, with load (when not nil) adding preloads
// to the page query only, and returns the total number of matches: exact
// up to models.SearchCountCap; past it, a number above the cap that is
// larger than the end of the page exactly when a next page exists (see
// models.SearchCountCap).
//
// The page is read first, one row more than asked: a page that ends
// before the limit holds the last match, so the total is the offset plus
// its length and no count runs. That is every search of a rare term,
// whose matches the trigram index finds (on PostgreSQL the index scan is
// most of the search's time, and counting ran it a second time). A full
// page, or one past the end, is followed by a count that stops at the
// cap. Neither query reads more matches than the cap, the offset and one
// page.
func page(d *deadlines, db *gorm.DB, q models.SearchQuery, table string, dst any, load func(*gorm.DB) *gorm.DB) (int64, error) {
	db = db.Session(&gorm.Session{})
	dir := " DESC"
	if q.Ascending {
		dir = ""
	}
	find := db.Session(&gorm.Session{})
	if load != nil {
		find = load(find)
	}
	created := table + ".created_at"
	if _, indexed := ftsIndexed[table]; indexed && strings.TrimSpace(q.Term) != "" && pgFewMatches(d, db) {
		// Few matches (by the planner's estimate): the trigram indexes
		// find them and a sort orders them, rather than a walk of the
		// project's newest rows (created_at + 0 s is created_at, in an
		// order no index gives; see pgFewMatches).
		created = "(" + created + " + interval '0 second')"
	}
	err := find.Order(created + dir + ", " + table + ".id" + dir).
		Limit(q.Limit + 1).Offset(q.Offset).Find(dst).Error
	if err != nil {
		return 0, translate(err)
	}
	rv := reflect.ValueOf(dst).Elem()
	n := rv.Len()
	if n > q.Limit {
		rv.SetLen(q.Limit)
	} else if n > 0 || q.Offset == 0 {
		return int64(q.Offset + n), nil
	}
	var total int64
	capped := db.Session(&gorm.Session{}).Select("1").Limit(models.SearchCountCap + 1)
	if err := db.Session(&gorm.Session{NewDB: true}).Table("(?) AS capped", capped).Count(&total).Error; err != nil {
		return 0, translate(err)
	}
	if total > models.SearchCountCap {
		total = max(total, int64(q.Offset+n))
	}
	return total, nil
}

// matchAnyTerm adds "one of terms is a substring of one of cols"
// (case-insensitive).
func matchAnyTerm(db *gorm.DB, terms []string, cols ...string) *gorm.DB {
	var conds []string
	var args []any
	for _, t := range terms {
		pat := likeContains(t)
		for _, c := range cols {
			conds = append(conds, "lower("+c+`) LIKE ? ESCAPE '\'`)
			args = append(args, pat)
		}
	}
	if len(conds) == 0 {
		return db
	}
	return db.Where("("+strings.Join(conds, " OR ")+")", args...)
}

// trustedAuthorSQL is true for rows of table (with project_id and
// author_id) whose text lockdown shows: in a private project, or written
// by a user with Developer or more in the project.
func trustedAuthorSQL(table string) string {
	return "(EXISTS (SELECT 1 FROM projects lp WHERE lp.id = " + table + ".project_id AND lp.visibility = 'private')" +
		" OR EXISTS (SELECT 1 FROM project_authorizations la WHERE la.project_id = " + table + ".project_id" +
		" AND la.user_id = " + table + ".author_id AND la.access_level >= " + strconv.Itoa(int(models.Developer)) + "))"
}

// lockdownTitleOrTrusted keeps, in lockdown, the issues or merge requests
// of table that match on their title or whose description lockdown shows:
// a withheld description matches nothing.
func lockdownTitleOrTrusted(db *gorm.DB, lockdown bool, term, table string) *gorm.DB {
	term = strings.TrimSpace(term)
	if !lockdown || term == "" {
		return db
	}
	if db.Dialector.Name() == "postgres" {
		return db.Where("("+pgMatch(table+".title")+" OR "+trustedAuthorSQL(table)+")", "%"+likeEscape(term)+"%")
	}
	return db.Where("(lower("+table+".title) LIKE ? ESCAPE '\\' OR "+trustedAuthorSQL(table)+")", likeContains(term))
}
