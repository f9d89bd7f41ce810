package migrations_test

import (
	"context"
	"database/sql"
	"testing"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// ciStatusesVersion is the migration that adds waiting_for_callback and
// canceling to the CI status checks (SQLite rebuilds both tables).
const ciStatusesVersion = 20261201110000

// TestCIStatuses: the rebuild keeps every row, every reference (a job's
// cascade from its pipeline, a variable's and an artifact's), and each
// table's AUTOINCREMENT counter; afterwards the two statuses are accepted
// and an unknown one is still refused. On both databases.
func TestCIStatuses(t *testing.T) {
	tests := []struct {
		dialect string
		open    func(*testing.T) *sql.DB
	}{
		{migrations.DialectPostgres, openPostgres},
		{migrations.DialectSQLite, func(t *testing.T) *sql.DB {
			// The store's connections enforce foreign keys: so must this one.
			db, err := sql.Open("sqlite", "file:"+storetest.SQLitePath(t)+"?_pragma=foreign_keys(1)")
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			t.Cleanup(func() { db.Close() })
			return db
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			ctx := context.Background()
			db := tt.open(t)
			p := fileProvider(t, db, tt.dialect)
			if _, err := p.UpTo(ctx, ciStatusesVersion-1); err != nil {
				t.Fatalf("up to %d: %v", ciStatusesVersion-1, err)
			}
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			insert := func(q string, args ...any) int64 { t.Helper(); return insertReturningID(t, db, q, args...) }
			user := insert(`INSERT INTO users (username, email, name) VALUES ('u', 'u@example.com', 'U')`)
			group := insert(`INSERT INTO namespaces (name, path, full_path) VALUES ('g', 'g', 'g')`)
			project := insert(`INSERT INTO projects (namespace_id, name, path, path_with_namespace) VALUES ($1, 'p', 'p', 'g/p')`, group)
			var pipes, jobs []int64
			for iid := 1; iid <= 3; iid++ {
				pipes = append(pipes, insert(`INSERT INTO ci_pipelines (project_id, iid, sha, ref, status, user_id) VALUES ($1, $2, 'abc', 'main', 'running', $3)`, project, iid, user))
				jobs = append(jobs, insert(`INSERT INTO ci_jobs (pipeline_id, project_id, name, status, ref) VALUES ($1, $2, 'test', 'running', 'main')`, pipes[iid-1], project))
			}
			child := insert(`INSERT INTO ci_pipelines (project_id, iid, sha, ref, status, upstream_pipeline_id, source_job_id) VALUES ($1, 4, 'abc', 'main', 'created', $2, $3)`, project, pipes[0], jobs[0])
			insert(`INSERT INTO ci_pipeline_variables (pipeline_id, key, value) VALUES ($1, 'A', '1')`, pipes[0])
			insert(`INSERT INTO ci_job_artifacts (project_id, job_id, file_type, file_name) VALUES ($1, $2, 'trace', 'job.log')`, project, jobs[0])
			// The highest ids are gone: they must not be handed out again.
			exec(`DELETE FROM ci_pipelines WHERE id IN ($1, $2)`, child, pipes[2])

			if _, err := p.Up(ctx); err != nil {
				t.Fatalf("up: %v", err)
			}
			count := func(q string) int {
				t.Helper()
				var n int
				if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				return n
			}
			if n := count(`SELECT count(*) FROM ci_pipelines`); n != 2 {
				t.Errorf("pipelines after the rebuild: %d, want 2", n)
			}
			if n := count(`SELECT count(*) FROM ci_jobs`); n != 2 {
				t.Errorf("jobs after the rebuild: %d, want 2", n)
			}
			exec(`UPDATE ci_pipelines SET status = 'canceling' WHERE id = $1`, pipes[0])
			exec(`UPDATE ci_jobs SET status = 'waiting_for_callback' WHERE id = $1`, jobs[0])
			if _, err := db.ExecContext(ctx, `UPDATE ci_jobs SET status = 'bogus' WHERE id = $1`, jobs[0]); err == nil {
				t.Error("an unknown status was accepted")
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO ci_jobs (pipeline_id, project_id, name, ref) VALUES ($1, $2, 'x', 'main')`, child+100, project); err == nil {
				t.Error("a job of a missing pipeline was accepted: the foreign key is gone")
			}
			if id := insert(`INSERT INTO ci_pipelines (project_id, iid, sha, ref) VALUES ($1, 5, 'abc', 'main')`, project); id <= child {
				t.Errorf("new pipeline id %d, want more than %d (ids of deleted pipelines are not reused)", id, child)
			}
			// Deleting a pipeline still cascades to its job, variables and
			// the job's artifacts.
			exec(`DELETE FROM ci_pipelines WHERE id = $1`, pipes[0])
			for table, want := range map[string]int{"ci_jobs": 1, "ci_pipeline_variables": 0, "ci_job_artifacts": 0} {
				if n := count(`SELECT count(*) FROM ` + table); n != want {
					t.Errorf("%s after deleting pipeline 1: %d rows, want %d", table, n, want)
				}
			}
			// And back down: the two statuses are mapped to their nearest
			// older ones.
			exec(`UPDATE ci_pipelines SET status = 'canceling' WHERE id = $1`, pipes[1])
			if _, err := p.DownTo(ctx, ciStatusesVersion-1); err != nil {
				t.Fatalf("down: %v", err)
			}
			if n := count(`SELECT count(*) FROM ci_pipelines WHERE status = 'canceled'`); n != 1 {
				t.Errorf("canceling pipelines after down: %d canceled, want 1", n)
			}
		})
	}
}
