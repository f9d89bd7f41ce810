package app

import (
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// Many ref moves while the store is busy (an import copying its refs
// inside another writer's lock) queue keys, not a goroutine each, and every
// key is announced once the store is free.
func TestRefAnnouncer_bounded(t *testing.T) {
	s := storetest.OpenSQLite(t)
	a := newRefAnnouncer(s, slog.New(slog.DiscardHandler))
	// Hold the embedded store's write lock, as a merging transaction does.
	tx := s.DB().Begin()
	if err := tx.Exec("INSERT INTO resource_changes (resource) VALUES ('held')").Error; err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	const refs = 300
	for range 2 { // every ref moves twice
		for i := range refs {
			a.announce(fmt.Sprintf("r:1:tag-%d", i))
		}
	}
	if n := runtime.NumGoroutine() - before; n > 2 {
		t.Errorf("%d goroutines for %d ref moves, want at most 2", n, 2*refs)
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		a.mu.Lock()
		running := a.running
		a.mu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("announcements still being sent after 20 s")
		}
		time.Sleep(time.Millisecond)
	}
	got := storetest.Int(t, s, "SELECT count(DISTINCT resource) FROM resource_changes WHERE resource LIKE 'r:1:tag-%'")
	if got != refs {
		t.Errorf("%d refs announced, want %d", got, refs)
	}
	if n := storetest.Int(t, s, "SELECT count(*) FROM resource_changes WHERE resource LIKE 'r:1:tag-%'"); n > 2*refs {
		t.Errorf("%d announcements for %d moves", n, 2*refs)
	}
}
