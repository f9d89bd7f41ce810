package migrations_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"gitlab.com/glmcp/glmcp/migrations"
)

// projectNamesVersion makes a project's name unique in its namespace.
const projectNamesVersion = 20261201190000

// TestProjectNames: existing projects sharing a name in a namespace keep
// working: the first keeps its name, the others become "<name>-<id>"
// (GitLab's FixDuplicateProjectNameAndPath), or "<name>-<id>-<id>…" when
// that name is taken by a project that keeps its name; names differing in
// case, or in other namespaces, and all paths are left alone; afterwards a
// duplicate is refused. On both databases.
func TestProjectNames(t *testing.T) {
	for _, tt := range []struct {
		dialect string
		open    func(*testing.T) *sql.DB
	}{{migrations.DialectPostgres, openPostgres}, {migrations.DialectSQLite, openSQLite}} {
		t.Run(tt.dialect, func(t *testing.T) {
			ctx := context.Background()
			db := tt.open(t)
			p := fileProvider(t, db, tt.dialect)
			if _, err := p.UpTo(ctx, projectNamesVersion-1); err != nil {
				t.Fatalf("up to %d: %v", projectNamesVersion-1, err)
			}
			insert := func(q string, args ...any) int64 { t.Helper(); return insertReturningID(t, db, q, args...) }
			g := insert(`INSERT INTO namespaces (name, path, full_path) VALUES ('g', 'g', 'g')`)
			h := insert(`INSERT INTO namespaces (name, path, full_path) VALUES ('h', 'h', 'h')`)
			project := func(ns int64, name, path string) int64 {
				return insert(`INSERT INTO projects (namespace_id, name, path, path_with_namespace) VALUES ($1, $2, $3, $4)`,
					ns, name, path, map[int64]string{g: "g/", h: "h/"}[ns]+path)
			}
			first, second, third := project(g, "App", "app"), project(g, "App", "app-2"), project(g, "App", "app-3")
			lower, other := project(g, "app", "app-lower"), project(h, "App", "app")
			// The names second and third would be renamed to are taken:
			// "App-<second>" twice (the first of them keeps it), and
			// "App-<third>" and "App-<third>-<third>".
			s, tt := fmt.Sprintf("App-%d", second), fmt.Sprintf("App-%d", third)
			takenS, takenS2 := project(g, s, "taken-s"), project(g, s, "taken-s-2")
			takenT, takenTT := project(g, tt, "taken-t"), project(g, tt+fmt.Sprintf("-%d", third), "taken-tt")
			if _, err := p.UpTo(ctx, projectNamesVersion); err != nil {
				t.Fatalf("up to %d: %v", projectNamesVersion, err)
			}
			type row struct{ name, path string }
			want := map[int64]row{first: {"App", "app"}, second: {fmt.Sprintf("%s-%d", s, second), "app-2"},
				third: {fmt.Sprintf("%s-%d-%d", tt, third, third), "app-3"}, lower: {"app", "app-lower"}, other: {"App", "app"},
				takenS: {s, "taken-s"}, takenS2: {fmt.Sprintf("%s-%d", s, takenS2), "taken-s-2"},
				takenT: {tt, "taken-t"}, takenTT: {fmt.Sprintf("%s-%d", tt, third), "taken-tt"}}
			for id, w := range want {
				var got row
				if err := db.QueryRowContext(ctx, `SELECT name, path FROM projects WHERE id = $1`, id).Scan(&got.name, &got.path); err != nil {
					t.Fatal(err)
				}
				if got != w {
					t.Errorf("project %d: %+v, want %+v", id, got, w)
				}
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO projects (namespace_id, name, path, path_with_namespace) VALUES ($1, 'App', 'app-4', 'g/app-4')`, g); err == nil {
				t.Error("a second project named App in g was accepted")
			}
			if _, err := p.DownTo(ctx, projectNamesVersion-1); err != nil {
				t.Fatalf("down: %v", err)
			}
		})
	}
}
