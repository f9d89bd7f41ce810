package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// auditEvent is a get_issue event of user at t.
func auditEvent(user string, t time.Time, i int) models.AuditEvent {
	return models.AuditEvent{CreatedAt: t, EventName: models.AuditEventToolInvoked, UserID: 2, Username: user, TokenID: 5,
		ClientName: "bench", ClientVersion: "1.0", Tool: "get_issue", Target: "gitlab-org/gitlab-mcp", TargetType: "project",
		Outcome: models.AuditSuccess, CorrelationID: fmt.Sprintf("req-%06d", i), ArgumentNames: "id,issue_iid"}
}

// TestAudit_insertListPrune: batches written are read back whole, newest
// first (created_at, then id, both descending: events of one instant in
// the reverse of their writing), filtered by user, target and time, and
// pruned by age.
func TestAudit_insertListPrune(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
		var batch []models.AuditEvent
		for i := range 30 {
			user := "alice"
			if i%3 == 0 {
				user = "bob"
			}
			// Three events share each instant.
			batch = append(batch, auditEvent(user, t0.Add(time.Duration(i/3)*time.Second), i))
		}
		batch[7].Target, batch[7].Outcome = "gitlab-org/other", models.AuditRefused
		if err := s.Audit.InsertAuditEvents(ctx, batch[:20]); err != nil {
			t.Fatal(err)
		}
		if err := s.Audit.InsertAuditEvents(ctx, batch[20:]); err != nil {
			t.Fatal(err)
		}
		all, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Limit: 100})
		if err != nil || len(all) != 30 {
			t.Fatalf("ListAuditEvents = %d events, %v; want 30", len(all), err)
		}
		for i, e := range all {
			want := batch[29-i] // newest first; within an instant the last written first
			if e.CorrelationID != want.CorrelationID || !e.CreatedAt.Equal(want.CreatedAt) || e.Username != want.Username ||
				e.Target != want.Target || e.Outcome != want.Outcome || e.ArgumentNames != want.ArgumentNames ||
				e.EventName != want.EventName || e.TokenID != 5 || e.UserID != 2 || e.ClientName != "bench" || e.TargetType != "project" {
				t.Fatalf("event %d = %+v; want %+v", i, e, want)
			}
			if i > 0 && e.ID >= all[i-1].ID {
				t.Fatalf("event %d has id %d after id %d: ids must fall, newest first", i, e.ID, all[i-1].ID)
			}
		}
		bob, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Username: "bob", Limit: 3})
		if err != nil || len(bob) != 3 || bob[0].CorrelationID != "req-000027" || bob[2].CorrelationID != "req-000021" {
			t.Fatalf("bob's newest 3 = %+v, %v", bob, err)
		}
		other, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Target: "gitlab-org/other"})
		if err != nil || len(other) != 1 || other[0].Outcome != models.AuditRefused {
			t.Fatalf("target filter = %+v, %v", other, err)
		}
		since, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Since: t0.Add(8 * time.Second)})
		if err != nil || len(since) != 6 {
			t.Fatalf("since 8 s = %d events, %v; want 6", len(since), err)
		}
		n, err := s.Audit.PruneAuditEvents(ctx, t0.Add(5*time.Second))
		if err != nil || n != 15 {
			t.Fatalf("PruneAuditEvents = %d, %v; want 15", n, err)
		}
		if left, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Limit: 100}); err != nil || len(left) != 15 ||
			left[14].CorrelationID != "req-000015" || left[0].ID != all[0].ID || left[14].ID != all[14].ID {
			t.Fatalf("%d events left, %v; want the newest 15, their ids kept", len(left), err)
		}
		if got := storetest.Int(t, s, "SELECT SUM(n) FROM audit_event_batches"); got != 15 {
			t.Fatalf("%d events left in the batches' counts; want 15", got)
		}
		// The rewritten row is still found by its names.
		bobLeft, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{Username: "bob", Limit: 100})
		if err != nil || len(bobLeft) != 5 || bobLeft[4].CorrelationID != "req-000015" {
			t.Fatalf("bob's events after the prune = %+v, %v; want 5, the oldest req-000015", bobLeft, err)
		}
	})
}

// TestAudit_listAcrossRows: a listing that reads more batch rows than one
// page of them (auditBatchPage) answers the newest events in order, with
// a filter and a limit, and after a prune that rewrote a row.
func TestAudit_listAcrossRows(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
		var all []models.AuditEvent
		for row := range 30 { // 30 rows of 3 events, a second apart
			var batch []models.AuditEvent
			for k := range 3 {
				i := row*3 + k
				user := "alice"
				if i%4 == 0 {
					user = "bob"
				}
				batch = append(batch, auditEvent(user, t0.Add(time.Duration(i)*time.Second), i))
			}
			if err := s.Audit.InsertAuditEvents(ctx, batch); err != nil {
				t.Fatal(err)
			}
			all = append(all, batch...)
		}
		want := func(f func(e models.AuditEvent) bool, limit int) []string {
			var out []string
			for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
				if f(all[i]) {
					out = append(out, all[i].CorrelationID)
				}
			}
			return out
		}
		check := func(stage string, filter models.AuditFilter, f func(e models.AuditEvent) bool) {
			t.Helper()
			got, err := s.Audit.ListAuditEvents(ctx, filter)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.CorrelationID)
			}
			if w := want(f, filter.Limit); !slices.Equal(ids, w) {
				t.Fatalf("%s: %+v lists %v; want %v", stage, filter, ids, w)
			}
		}
		everyEvent := func(models.AuditEvent) bool { return true }
		isBob := func(e models.AuditEvent) bool { return e.Username == "bob" }
		check("all", models.AuditFilter{Limit: 50}, everyEvent)
		check("bob", models.AuditFilter{Username: "bob", Limit: 20}, isBob)
		cutoff := t0.Add(40 * time.Second) // inside row 13
		if _, err := s.Audit.PruneAuditEvents(ctx, cutoff); err != nil {
			t.Fatal(err)
		}
		kept := func(f func(e models.AuditEvent) bool) func(e models.AuditEvent) bool {
			return func(e models.AuditEvent) bool { return !e.CreatedAt.Before(cutoff) && f(e) }
		}
		check("all after the prune", models.AuditFilter{Limit: 100}, kept(everyEvent))
		check("bob after the prune", models.AuditFilter{Username: "bob", Limit: 100}, kept(isBob))
	})
}

// TestAudit_idsNotReused: an event written after every older one was
// pruned gets an id above theirs (a batch row's id is never given again).
func TestAudit_idsNotReused(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
		list := func() []models.AuditEvent {
			t.Helper()
			all, err := s.Audit.ListAuditEvents(ctx, models.AuditFilter{})
			if err != nil {
				t.Fatal(err)
			}
			return all
		}
		if err := s.Audit.InsertAuditEvents(ctx, []models.AuditEvent{auditEvent("alice", t0, 1)}); err != nil {
			t.Fatal(err)
		}
		first := list()[0].ID
		if n, err := s.Audit.PruneAuditEvents(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("prune = %d, %v; want 1", n, err)
		}
		if err := s.Audit.InsertAuditEvents(ctx, []models.AuditEvent{auditEvent("alice", t0.Add(2*time.Hour), 2)}); err != nil {
			t.Fatal(err)
		}
		if got := list(); len(got) != 1 || got[0].ID <= first {
			t.Fatalf("after the prune: %+v; want one event with an id above %d", got, first)
		}
	})
}

// BenchmarkAuditInsert is the PostgreSQL server's CPU time per audit event
// written in the writer's batches of 200 (pg-cpu-ns/row, a row being an
// event: the on-CPU time of the database's backends from
// /proc/PID/schedstat, so not the wall time a shared machine moves) and
// the WAL per event (wal-B/row, pg_current_wal_lsn: server-wide, so
// another database's writes count too), and this process's CPU time per
// event (go-cpu-ns/row: encoding and sending the batch). The events'
// request ids are random, as glmcp's are: they do not compress. Linux
// and a PostgreSQL server on this machine only.
//
//	go test ./services/store -run '^$' -bench BenchmarkAuditInsert -benchtime 200x
func BenchmarkAuditInsert(b *testing.B) {
	if os.Getenv(storetest.EnvDatabaseURL) == "" {
		b.Skip(storetest.EnvDatabaseURL + " is not set")
	}
	s := storetest.OpenPostgres(b)
	ctx := context.Background()
	t0 := time.Now()
	batch := make([]models.AuditEvent, 200)
	for i := range batch {
		batch[i] = auditEvent("alice", t0, i)
		// A request id as glmcp makes one: random, so it does not compress.
		batch[i].CorrelationID = fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
	}
	write := func(k int) {
		for i := range batch {
			batch[i].CreatedAt = t0.Add(time.Duration(k*len(batch)+i) * 100 * time.Microsecond)
		}
		if err := s.Audit.InsertAuditEvents(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	write(0) // the pool's connections and the insert's statement
	cpu0, wal0, self0 := backendsCPU(b, s), walLSN(b, s), selfCPU(b)
	b.ResetTimer()
	for k := range b.N {
		write(k + 1)
	}
	b.StopTimer()
	rows := float64(b.N * len(batch))
	b.ReportMetric(float64(backendsCPU(b, s)-cpu0)/rows, "pg-cpu-ns/row")
	b.ReportMetric(float64(walLSN(b, s)-wal0)/rows, "wal-B/row")
	b.ReportMetric(float64(selfCPU(b)-self0)/rows, "go-cpu-ns/row")
}

// selfCPU is this process's user+system time (the writer's side).
func selfCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendsCPU is the on-CPU time of the store's PostgreSQL backends.
func backendsCPU(tb testing.TB, s *store.Store) time.Duration {
	var total time.Duration
	for _, pid := range storetest.Ints(tb, s, "SELECT pid FROM pg_stat_activity WHERE datname = current_database()") {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			tb.Skipf("the backends' CPU time: %v", err)
		}
		ns, err := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		total += time.Duration(ns)
	}
	return total
}

func walLSN(tb testing.TB, s *store.Store) int64 {
	return storetest.Int(tb, s, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
}

// TestAudit_nulRejectedByPostgres: a batch holding an event with a NUL
// byte (which PostgreSQL's text cannot hold) is refused whole, by the
// store's check before anything is written; the audit writer cleans the
// strings it queues (services/audit Record) so that its batches never
// are.
func TestAudit_nulRejectedByPostgres(t *testing.T) {
	s := storetest.OpenPostgres(t)
	e := auditEvent("alice", time.Now(), 1)
	e.Tool = "get\x00issue"
	if err := s.Audit.InsertAuditEvents(context.Background(), []models.AuditEvent{auditEvent("bob", time.Now(), 0), e}); err == nil {
		t.Fatal("a NUL in an audit event's text was written; the writer's cleaning is then not needed")
	}
}
