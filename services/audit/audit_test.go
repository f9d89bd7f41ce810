package audit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
)

type fakeStore struct {
	mu      sync.Mutex
	events  []models.AuditEvent
	batches int
}

func (f *fakeStore) InsertAuditEvents(_ context.Context, ev []models.AuditEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, ev...)
	f.batches++
	return nil
}

func (f *fakeStore) PruneAuditEvents(context.Context, time.Time) (int64, error) { return 0, nil }

// TestWriter_noneLost: events recorded by many goroutines, some while the
// writer is stopping and some after, are all written, in batches.
func TestWriter_noneLost(t *testing.T) {
	st := &fakeStore{}
	w := New(st, Options{Batch: 50, Queue: 16, Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 250 {
				w.Record(models.AuditEvent{Tool: "t", DurationMs: int64(g*1000 + i)})
				if g == 0 && i == 100 {
					cancel() // stop while others are still recording
				}
			}
		})
	}
	wg.Wait()
	<-done
	w.Record(models.AuditEvent{Tool: "late"}) // after Run: written at once
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.events) != 2001 {
		t.Fatalf("events written = %d, want 2001", len(st.events))
	}
	if st.batches >= 2001 {
		t.Errorf("%d batches for 2001 events: not batched", st.batches)
	}
	for _, e := range st.events {
		if e.EventName != models.AuditEventToolInvoked || e.CreatedAt.IsZero() {
			t.Fatalf("event not filled: %+v", e)
		}
	}
}

// TestWriter_clean: text a store cannot hold (a NUL byte, invalid UTF-8,
// from a client's tool name, argument names or request id) is replaced
// before it is queued, so it cannot fail a batch of other calls' events.
func TestWriter_clean(t *testing.T) {
	st := &fakeStore{}
	w := New(st, Options{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	w.Record(models.AuditEvent{Tool: "get\x00issue", ArgumentNames: "a\x00,b", CorrelationID: "r\xff1", Target: "ok/ok", Username: "a\x1fb", Outcome: models.AuditFailed})
	cancel()
	<-done
	if len(st.events) != 1 {
		t.Fatalf("%d events written; want 1", len(st.events))
	}
	e := st.events[0]
	if e.Tool != "get\uFFFDissue" || e.ArgumentNames != "a\uFFFD,b" || e.CorrelationID != "r\uFFFD1" || e.Target != "ok/ok" || e.Username != "a\uFFFDb" {
		t.Fatalf("event = %+v; want NUL, U+001F and invalid bytes as U+FFFD, the rest as recorded", e)
	}
}

// refusingStore refuses, as invalid, any batch holding an event whose
// tool is "bad", as a store does a row it cannot hold.
type refusingStore struct {
	fakeStore
	calls int
}

func (r *refusingStore) InsertAuditEvents(ctx context.Context, ev []models.AuditEvent) error {
	r.calls++
	for _, e := range ev {
		if e.Tool == "bad" {
			return fmt.Errorf("copy: %w", models.ErrInvalidInput)
		}
	}
	return r.fakeStore.InsertAuditEvents(ctx, ev)
}

// TestWriter_invalidRowAlone: a row the store refuses fails alone, without
// retries; the 199 others of its batch are written.
func TestWriter_invalidRowAlone(t *testing.T) {
	st := &refusingStore{}
	w := New(st, Options{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	for i := range 200 {
		tool := "get_issue"
		if i == 77 {
			tool = "bad"
		}
		w.Record(models.AuditEvent{Tool: tool, Outcome: models.AuditSuccess})
	}
	cancel()
	<-done
	if len(st.events) != 199 {
		t.Fatalf("%d events written; want the 199 good ones", len(st.events))
	}
	if st.calls > 2*8+1 { // halving 200 down to the one row: two calls a level
		t.Fatalf("%d store calls; want the bad row found by halving, no retries", st.calls)
	}
}
