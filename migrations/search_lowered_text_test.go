package migrations_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// TestSearchLoweredText: migration 20261208010000 fills the lower-cased
// twins of the rows already there (ids more than one batch of 10,000
// apart), announcing none of them to listen streams or views; afterwards
// every write keeps the twins equal to lower(column), whatever it writes
// to them, and a real edit is still announced.
func TestSearchLoweredText(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := fileProvider(t, db, migrations.DialectPostgres)
	if _, err := p.UpTo(ctx, searchTextVersion-1); err != nil {
		t.Fatalf("up to %d: %v", searchTextVersion-1, err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO users (username, email, name) VALUES ('u', 'u@example.com', 'U')`)
	exec(`INSERT INTO namespaces (name, path, full_path) VALUES ('g', 'g', 'g')`)
	exec(`INSERT INTO projects (name, path, namespace_id, path_with_namespace) VALUES ('p', 'p', 1, 'g/p')`)
	exec(`INSERT INTO issues (id, project_id, iid, title, description, author_id) VALUES
		(1, 1, 1, 'ÄBC Title', 'Straße İstanbul', 1), (25001, 1, 2, 'Second ISSUE', 'ΟΔΟΣ', 1)`)
	exec(`INSERT INTO merge_requests (id, project_id, iid, title, description, source_branch, target_branch, author_id) VALUES
		(1, 1, 1, 'Fix THE Loop', 'Changes. Changes.', 'a', 'main', 1), (30000, 1, 2, 'Other', 'ÅNGSTRÖM', 'b', 'main', 1)`)
	exec(`INSERT INTO notes (id, noteable_type, noteable_id, project_id, author_id, body, discussion_id) VALUES
		(1, 'Issue', 1, 1, 1, 'Root CAUSE', 'd1'), (12000, 'Issue', 1, 1, 1, 'ǄUNGLA', 'd2')`)
	exec(`INSERT INTO milestones (project_id, iid, title, description) VALUES (1, 1, 'V18.8', 'Protocol WORK')`)
	exec(`INSERT INTO wiki_pages (project_id, slug, title, content) VALUES (1, 'Guides/Setup', 'Set Up', 'ALWAYS on')`)

	listener, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close(ctx)
	for _, channel := range []string{"glmcp_resources", "glmcp_views"} {
		if _, err := listener.Exec(ctx, "LISTEN "+channel); err != nil {
			t.Fatal(err)
		}
	}
	// announced lists what was announced since the last call: everything
	// before the sentinel this test sends itself, so nothing waits on
	// silence.
	announced := func() []string {
		t.Helper()
		exec(`SELECT pg_notify('glmcp_views', 'sentinel')`)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		var got []string
		for {
			n, err := listener.WaitForNotification(wctx)
			if err != nil {
				t.Fatalf("waiting for the sentinel: %v (after %v)", err, got)
			}
			if n.Payload == "sentinel" {
				return got
			}
			got = append(got, n.Channel+" "+n.Payload)
		}
	}

	if _, err := p.UpTo(ctx, searchTextVersion); err != nil {
		t.Fatalf("up to %d: %v", searchTextVersion, err)
	}
	if got := announced(); len(got) != 0 {
		t.Errorf("the migration announced %v; want nothing (no row changed but its twins)", got)
	}
	stale := func() int64 {
		t.Helper()
		var n int64
		err := db.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM issues WHERE title_lower IS DISTINCT FROM lower(title) OR description_lower IS DISTINCT FROM lower(description)) +
			(SELECT count(*) FROM merge_requests WHERE title_lower IS DISTINCT FROM lower(title) OR description_lower IS DISTINCT FROM lower(description)) +
			(SELECT count(*) FROM notes WHERE body_lower IS DISTINCT FROM lower(body)) +
			(SELECT count(*) FROM milestones WHERE title_lower IS DISTINCT FROM lower(title) OR description_lower IS DISTINCT FROM lower(description)) +
			(SELECT count(*) FROM wiki_pages WHERE slug_lower IS DISTINCT FROM lower(slug) OR title_lower IS DISTINCT FROM lower(title)
				OR content_lower IS DISTINCT FROM lower(content))`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := stale(); n != 0 {
		t.Fatalf("%d rows' twins differ from lower() after the migration", n)
	}
	var desc string
	if err := db.QueryRowContext(ctx, `SELECT description_lower FROM issues WHERE id = 25001`).Scan(&desc); err != nil || desc != "οδοσ" {
		t.Errorf("issue 25001's description_lower = %q, %v; want lower(ΟΔΟΣ)", desc, err)
	}

	// Writes after it: new rows, edits, and a statement writing the twins
	// themselves.
	exec(`INSERT INTO issues (id, project_id, iid, title, description, author_id) VALUES (3, 1, 3, 'NEW One', 'FRESH', 1)`)
	exec(`UPDATE merge_requests SET title_lower = 'wrong', description_lower = NULL WHERE id = 1`)
	exec(`UPDATE notes SET body = 'Edited BODY' WHERE id = 1`)
	exec(`UPDATE wiki_pages SET content_lower = 'x'`)
	if got := announced(); len(got) != 0 {
		t.Errorf("writes to the twins alone announced %v; want nothing", got)
	}
	exec(`UPDATE issues SET title = 'Renamed' WHERE id = 1`)
	if got := announced(); len(got) != 2 {
		t.Errorf("an issue renamed announced %v; want its resource and its view", got)
	}
	if n := stale(); n != 0 {
		t.Errorf("%d rows' twins differ from lower() after the writes", n)
	}

	// An UPDATE of other columns leaves the twins as they are (a new copy
	// of a long text would be written otherwise): a twin made stale behind
	// the trigger's back stays stale until its column is written.
	exec(`ALTER TABLE merge_requests DISABLE TRIGGER merge_requests_lower_text`)
	exec(`UPDATE merge_requests SET description_lower = 'stale' WHERE id = 30000`)
	exec(`ALTER TABLE merge_requests ENABLE TRIGGER merge_requests_lower_text`)
	twin := func() string {
		t.Helper()
		var s string
		if err := db.QueryRowContext(ctx, `SELECT description_lower FROM merge_requests WHERE id = 30000`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	exec(`UPDATE merge_requests SET state = 'closed', merged_at = now() WHERE id = 30000`)
	if got := twin(); got != "stale" {
		t.Errorf("description_lower after an update of other columns = %q; want it untouched", got)
	}
	exec(`UPDATE merge_requests SET title = title WHERE id = 30000`)
	if got := twin(); got != "ångström" {
		t.Errorf("description_lower after the title was written = %q; want ångström", got)
	}
}
