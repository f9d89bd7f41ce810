package migrations_test

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"testing"

	"gitlab.com/glmcp/glmcp/migrations"
)

const searchIndexesVersion = 20261207160000

// droppedLater are indexes built CONCURRENTLY that a later migration
// drops: 20261207230000 replaces audit_events by audit_event_batches, and
// 20261208010000 moves the trigram indexes to the lower-cased text.
var droppedLater = map[string]bool{
	"index_audit_events_on_created_at_and_id":     true,
	"index_issues_on_title_trigram":               true,
	"index_issues_on_description_trigram":         true,
	"index_merge_requests_on_title_trigram":       true,
	"index_merge_requests_on_description_trigram": true,
	"index_notes_on_body_trigram":                 true,
	"index_milestones_on_title_trigram":           true,
	"index_milestones_on_description_trigram":     true,
	"index_wiki_pages_on_slug_trigram":            true,
	"index_wiki_pages_on_title_trigram":           true,
	"index_wiki_pages_on_content_trigram":         true,
}

// searchTextVersion is the migration that builds the trigram indexes
// search reads now.
const searchTextVersion = 20261208010000

// The trigram indexes are built CONCURRENTLY; one an interrupted build left
// INVALID is rebuilt by the next Up, whether or not its migration was
// recorded, and REINDEX leftovers are dropped. Invalid indexes glmcp does
// not build are left alone.
func TestPostgresInvalidIndexRebuilt(t *testing.T) {
	db := openPostgres(t)
	ctx := context.Background()
	if err := migrations.Up(ctx, db, migrations.DialectPostgres); err != nil {
		t.Fatal(err)
	}
	ours, err := migrations.ConcurrentIndexes()
	if err != nil || !slices.Contains(ours, "index_issues_on_title_lower_trigram") || !slices.Contains(ours, "index_notes_on_body_lower_trigram") {
		t.Fatalf("ConcurrentIndexes() = %v, %v; want the trigram indexes", ours, err)
	}
	for _, name := range ours {
		if droppedLater[name] {
			continue
		}
		if valid, ok := indexValid(t, db, name); !ok || !valid {
			t.Fatalf("index %s after Up: exists %v, valid %v", name, ok, valid)
		}
	}
	for _, q := range []string{
		// As a build interrupted midway leaves them (indisvalid is what
		// CREATE INDEX CONCURRENTLY sets last).
		`UPDATE pg_index SET indisvalid = false WHERE indexrelid IN
		   ('index_issues_on_title_lower_trigram'::regclass, 'index_notes_on_body_lower_trigram'::regclass)`,
		// The migration not recorded: Up runs it again.
		`DELETE FROM goose_db_version WHERE version_id = ` + strconv.Itoa(searchTextVersion),
		`CREATE INDEX index_issues_on_description_lower_trigram_ccnew ON issues (id)`,
		`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'index_issues_on_description_lower_trigram_ccnew'::regclass`,
		`CREATE INDEX someone_elses ON issues (iid)`,
		`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'someone_elses'::regclass`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := migrations.Up(ctx, db, migrations.DialectPostgres); err != nil {
		t.Fatalf("Up over invalid indexes: %v", err)
	}
	for _, name := range []string{"index_issues_on_title_lower_trigram", "index_notes_on_body_lower_trigram"} {
		if valid, ok := indexValid(t, db, name); !ok || !valid {
			t.Errorf("index %s after the second Up: exists %v, valid %v; want rebuilt", name, ok, valid)
		}
	}
	if _, ok := indexValid(t, db, "index_issues_on_description_lower_trigram_ccnew"); ok {
		t.Error("the REINDEX leftover _ccnew is still there")
	}
	if valid, ok := indexValid(t, db, "someone_elses"); !ok || valid {
		t.Errorf("someone_elses: exists %v, valid %v; want left as it was (invalid)", ok, valid)
	}
	if v, err := migrations.Version(ctx, db, migrations.DialectPostgres); err != nil || v < searchIndexesVersion {
		t.Errorf("Version() = %d, %v", v, err)
	}
}

// indexValid reports whether index name is valid, and whether it exists.
func indexValid(t *testing.T, db *sql.DB, name string) (valid, exists bool) {
	t.Helper()
	err := db.QueryRow(`SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE c.relname = $1`, name).Scan(&valid)
	if err == sql.ErrNoRows {
		return false, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return valid, true
}

// On SQLite the FTS5 trigram tables index the rows that were there before
// the migration, and triggers keep them in step with inserts, updates,
// deletes and cascades.
func TestSQLiteSearchIndexesInStep(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	p := fileProvider(t, db, migrations.DialectSQLite)
	if _, err := p.UpTo(ctx, searchIndexesVersion-1); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO users (id, username, email, name) VALUES (1, 'u', 'u@example.com', 'U')`)
	exec(`INSERT INTO namespaces (id, name, path, full_path) VALUES (1, 'g', 'g', 'g')`)
	exec(`INSERT INTO projects (id, name, path, namespace_id, path_with_namespace) VALUES (1, 'p', 'p', 1, 'g/p'), (2, 'q', 'q', 1, 'g/q')`)
	exec(`INSERT INTO issues (id, project_id, iid, title, description, author_id) VALUES
		(1, 1, 1, 'Nebula launch', 'before the migration', 1)`)
	exec(`INSERT INTO notes (id, noteable_type, noteable_id, project_id, author_id, body, discussion_id) VALUES
		(1, 'Issue', 1, 1, 1, 'Root cause found', 'd1')`)
	if err := migrations.Up(ctx, db, migrations.DialectSQLite); err != nil {
		t.Fatal(err)
	}
	match := func(table, expr string) []int64 {
		t.Helper()
		rows, err := db.QueryContext(ctx, "SELECT rowid FROM "+table+"_fts WHERE "+table+"_fts MATCH ? ORDER BY rowid", expr)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		ids := []int64{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	want := func(table, expr string, ids ...int64) {
		t.Helper()
		if ids == nil {
			ids = []int64{}
		}
		if got := match(table, expr); !slices.Equal(got, ids) {
			t.Errorf("%s MATCH %s = %v, want %v", table, expr, got, ids)
		}
	}
	want("issues", `"NEBULA"`, 1)
	want("issues", `"the migration"`, 1)
	want("notes", `"root cause"`, 1)

	exec(`INSERT INTO issues (id, project_id, iid, title, description, author_id) VALUES
		(2, 1, 2, 'Orbit pricing', 'nebula again', 1), (3, 2, 1, 'Other project', '', 1)`)
	want("issues", `"nebula"`, 1, 2)
	want("issues", `title : "nebula"`, 1)
	exec(`UPDATE issues SET title = 'Renamed' WHERE id = 1`)
	want("issues", `"nebula"`, 2)
	want("issues", `"renamed"`, 1)
	exec(`UPDATE issues SET state = 'closed' WHERE id = 2`) // not an indexed column
	want("issues", `"nebula"`, 2)
	exec(`DELETE FROM issues WHERE id = 2`)
	want("issues", `"nebula"`)
	exec(`INSERT INTO milestones (id, project_id, iid, title, description) VALUES (1, 2, 1, '18.8', 'protocol work')`)
	exec(`INSERT INTO wiki_pages (project_id, slug, title, content) VALUES (2, 'guides/setup', 'Setup', 'always on')`)
	exec(`INSERT INTO merge_requests (id, project_id, iid, title, source_branch, target_branch, author_id) VALUES (1, 2, 1, 'Discover tools', 'a', 'main', 1)`)
	want("milestones", `"protocol"`, 1)
	want("wiki_pages", `"always on"`, 1)
	want("merge_requests", `"discover"`, 1)
	exec(`DELETE FROM projects WHERE id = 2`) // cascades
	want("issues", `"other"`)
	want("milestones", `"protocol"`)
	want("wiki_pages", `"always on"`)
	want("merge_requests", `"discover"`)
	for _, table := range []string{"issues", "merge_requests", "notes", "milestones", "wiki_pages"} {
		exec(`INSERT INTO ` + table + `_fts (` + table + `_fts, rank) VALUES ('integrity-check', 1)`)
	}
}
