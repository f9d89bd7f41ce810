package migrations_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// auditBatchesVersion replaces audit_events (a row per event) by
// audit_event_batches (a row per batch of the audit writer).
const auditBatchesVersion = 20261207230000

// TestAuditEventBatches: the events written before the migration are read
// after it as they were, ids and all (two of them a row apart: ids 5 and
// 1500), newest first with the events written after it, whose ids are
// above theirs; the filters and the prune reach them. On both databases.
func TestAuditEventBatches(t *testing.T) {
	for _, tt := range []struct {
		dialect string
		dsn     func(testing.TB) string
	}{{migrations.DialectPostgres, storetest.PostgresDSN}, {migrations.DialectSQLite, storetest.SQLitePath}} {
		t.Run(tt.dialect, func(t *testing.T) {
			ctx := context.Background()
			dsn := tt.dsn(t)
			driver := "pgx"
			if tt.dialect == migrations.DialectSQLite {
				driver = "sqlite"
			}
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			p := fileProvider(t, db, tt.dialect)
			if _, err := p.UpTo(ctx, auditBatchesVersion-1); err != nil {
				t.Fatalf("up to %d: %v", auditBatchesVersion-1, err)
			}
			t0 := time.Date(2026, 12, 1, 10, 0, 0, 123456000, time.UTC)
			for _, r := range []struct {
				id       int64
				at       time.Time
				user, to string
				outcome  string
			}{{5, t0, "alice", "g/a", "success"}, {1500, t0.Add(time.Hour), "bob", "g/b", "refused"}, {1501, t0.Add(time.Hour), "alice", "", "failed"}} {
				if _, err := db.ExecContext(ctx, `INSERT INTO audit_events (id, created_at, event_name, user_id, username, token_id,
					client_name, client_version, tool, target, target_type, outcome, duration_ms, correlation_id, argument_names)
					VALUES ($1, $2, 'ai_tool_invoked', 2, $3, 7, 'cli', '1.0', 'get_issue', $4, 'project', $5, 12, 'req', 'id,issue_iid')`,
					r.id, r.at, r.user, r.to, r.outcome); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.UpTo(ctx, auditBatchesVersion); err != nil {
				t.Fatalf("up to %d: %v", auditBatchesVersion, err)
			}
			db.Close()
			s, err := store.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.Audit.InsertAuditEvents(ctx, []models.AuditEvent{{CreatedAt: t0.Add(2 * time.Hour), EventName: "ai_tool_invoked",
				Username: "alice", Tool: "get_project", Target: "g/a", Outcome: models.AuditSuccess}}); err != nil {
				t.Fatal(err)
			}
			all, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{})
			if err != nil || len(all) != 4 {
				t.Fatalf("ListAuditEvents = %+v, %v; want 4", all, err)
			}
			if all[0].Tool != "get_project" || all[0].ID <= 1501 || all[1].ID != 1501 || all[2].ID != 1500 || all[3].ID != 5 {
				t.Fatalf("order/ids: %d %d %d %d; want new (>1501), 1501, 1500, 5", all[0].ID, all[1].ID, all[2].ID, all[3].ID)
			}
			old := all[3]
			if !old.CreatedAt.Equal(t0) || old.Username != "alice" || old.Target != "g/a" || old.Outcome != models.AuditSuccess ||
				old.UserID != 2 || old.TokenID != 7 || old.ClientName != "cli" || old.ClientVersion != "1.0" || old.Tool != "get_issue" ||
				old.TargetType != "project" || old.DurationMs != 12 || old.CorrelationID != "req" || old.ArgumentNames != "id,issue_iid" ||
				old.EventName != "ai_tool_invoked" {
				t.Fatalf("moved event = %+v", old)
			}
			if bob, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Username: "bob"}); err != nil || len(bob) != 1 || bob[0].ID != 1500 {
				t.Fatalf("--user bob = %+v, %v", bob, err)
			}
			if ga, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Target: "g/a"}); err != nil || len(ga) != 2 || ga[1].ID != 5 {
				t.Fatalf("--project g/a = %+v, %v", ga, err)
			}
			if n, err := s.Audit.PruneAuditEvents(ctx, t0.Add(time.Minute)); err != nil || n != 1 {
				t.Fatalf("prune = %d, %v; want 1", n, err)
			}
			if left, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{}); err != nil || len(left) != 3 || left[2].ID != 1500 {
				t.Fatalf("after the prune = %+v, %v", left, err)
			}
		})
	}
}
