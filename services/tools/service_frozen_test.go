package tools_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// frozenStore is a memStore whose ListTools blocks while frozen (a
// SIGSTOPped database), until its context ends.
type frozenStore struct {
	memStore
	frozen chan struct{} // closed: answers again
	calls  chan struct{}
}

func (s *frozenStore) ListTools(ctx context.Context) ([]models.Tool, error) {
	s.calls <- struct{}{}
	select {
	case <-s.frozen:
		return s.memStore.ListTools(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A reload waiting on a frozen store holds no reader (issue #21, item 3):
// an aged or invalidated snapshot is served after ReloadWait, one reload
// runs at a time, and it ends at ReloadTimeout.
func TestSnapshot_frozenStoreServesTheCachedOne(t *testing.T) {
	st := &frozenStore{frozen: make(chan struct{}), calls: make(chan struct{}, 100)}
	if err := st.UpsertTool(context.Background(), &models.Tool{Name: "a", Enabled: true,
		InputSchema: models.JSON(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_000_000, 0)
	svc, err := tools.NewService(st, nil, tools.Options{MaxAge: time.Second, Now: func() time.Time { return now },
		// A reload outlives the test's reads however slow the machine, so
		// the count below does not depend on timing.
		ReloadTimeout: time.Minute, ReloadWait: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	close(st.frozen)
	first, err := svc.Snapshot(context.Background())
	if err != nil || len(first.Entries) != 1 {
		t.Fatalf("first Snapshot = %v, %v", first, err)
	}
	<-st.calls
	st.frozen = make(chan struct{}) // frozen from now on

	for _, stale := range []func(){func() { now = now.Add(2 * time.Second) }, svc.Invalidate} {
		stale()
		for range 20 {
			got, err := svc.Snapshot(context.Background())
			if err != nil || got != first {
				t.Fatalf("Snapshot while frozen = %p, %v; want the cached %p", got, err, first)
			}
		}
	}
	// 40 readers, reloads one at a time: one reload, still waiting on the
	// frozen store.
	select {
	case <-st.calls:
	case <-time.After(time.Minute):
		t.Fatal("no reload started")
	}
	if n := len(st.calls); n != 0 {
		t.Errorf("%d more reloads while one was in flight, want one at a time", n)
	}
	close(st.frozen) // the waiting reload ends

	// Nothing cached: the first load waits for the reload's deadline.
	empty := &frozenStore{frozen: make(chan struct{}), calls: make(chan struct{}, 100)}
	svc2, err := tools.NewService(empty, nil, tools.Options{ReloadTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc2.Snapshot(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("first load from a frozen store: %v, want the reload deadline", err)
	}
}
